export interface Item {
  sku: string
  quantity: number
}

const stock = new Map<string, Item>()

export function receive(sku: string, quantity: number): Item {
  // TODO: reject negative quantities instead of silently accepting them
  const item = stock.get(sku) ?? { sku, quantity: 0 }
  item.quantity += quantity
  stock.set(sku, item)
  return item
}

export function ship(sku: string, quantity: number): Item {
  const item = stock.get(sku)
  if (!item) throw new Error(`unknown sku ${sku}`)
  // TODO: keep a reservation so two orders cannot ship the same unit
  item.quantity -= quantity
  return item
}
