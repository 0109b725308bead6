/**
 * Values keyed by the ascending seq of the event they came from: the shape of derived state
 * that compaction edits (T3.5). `push` is O(1); `set` finds its seq by binary search; a
 * `replaceThrough` costs what it removes. With `weigh`, `total` is the sum of the weights of
 * the values held, kept current by every change (so reading it is O(1)).
 */
export class SeqList<T> {
  readonly #seqs: number[] = []
  readonly #values: T[] = []
  readonly #weigh: ((value: T) => number) | undefined
  #total = 0

  constructor(weigh?: (value: T) => number) {
    this.#weigh = weigh
  }

  /** The sum of the held values' weights (0 without `weigh`). */
  get total(): number {
    return this.#total
  }

  /** Appends `value` for `seq`, which must be above every seq already held. */
  push(seq: number, value: T): void {
    this.#seqs.push(seq)
    this.#values.push(value)
    if (this.#weigh !== undefined) this.#total += this.#weigh(value)
  }

  /** Replaces the value held for `seq` and returns the old one; `undefined` (and no change) when none is held. */
  set(seq: number, value: T): T | undefined {
    const at = this.#find(seq)
    if (this.#seqs[at] !== seq) return undefined
    const old = this.#values[at]!
    this.#values[at] = value
    if (this.#weigh !== undefined) this.#total += this.#weigh(value) - this.#weigh(old)
    return old
  }

  /** Replaces every value held for a seq up to `through` by one `value` held for `through`; returns the removed ones. */
  replaceThrough(through: number, value: T): T[] {
    const end = this.#find(through + 1)
    this.#seqs.splice(0, end, through)
    const removed = this.#values.splice(0, end, value)
    const weigh = this.#weigh
    if (weigh !== undefined) {
      for (const old of removed) this.#total -= weigh(old)
      this.#total += weigh(value)
    }
    return removed
  }

  /** The value held for `seq`, if any. */
  get(seq: number): T | undefined {
    const at = this.#find(seq)
    return this.#seqs[at] === seq ? this.#values[at] : undefined
  }

  /** The value at `index` (0 is the oldest), with the seq it is held for. */
  at(index: number): { seq: number; value: T } | undefined {
    if (index < 0 || index >= this.#values.length) return undefined
    return { seq: this.#seqs[index]!, value: this.#values[index]! }
  }

  /** A copy of the values, in seq order. */
  values(): T[] {
    return this.#values.slice()
  }

  get length(): number {
    return this.#values.length
  }

  // The first position whose seq is at least `seq`.
  #find(seq: number): number {
    let lo = 0
    let hi = this.#seqs.length
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (this.#seqs[mid]! < seq) lo = mid + 1
      else hi = mid
    }
    return lo
  }
}
