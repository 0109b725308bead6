export function price(base: number, quantity: number): number {
  // TODO: move the bulk discount threshold into configuration
  const discount = quantity >= 100 ? 0.1 : 0
  return Math.round(base * quantity * (1 - discount) * 100) / 100
}

export function currency(amount: number): string {
  return `€${amount.toFixed(2)}`
}
