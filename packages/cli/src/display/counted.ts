/**
 * `n` and the noun, singular for exactly one: `1 line`, `2 lines`, `1,024 bytes`. `plural` is
 * the noun's plural when adding `s` is wrong (`match` → `matches`).
 */
export function counted(n: number, noun: string, plural = `${noun}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? noun : plural}`
}
