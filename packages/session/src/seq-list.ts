/**
 * Values keyed by the ascending seq of the event they came from: the shape of derived state
 * that compaction edits (T3.5). `push` is O(1); `set` finds its seq by binary search; a
 * `replaceThrough` costs what it removes.
 */
export class SeqList<T> {
  readonly #seqs: number[] = []
  readonly #values: T[] = []

  /** Appends `value` for `seq`, which must be above every seq already held. */
  push(seq: number, value: T): void {
    this.#seqs.push(seq)
    this.#values.push(value)
  }

  /** Replaces the value held for `seq` and returns the old one; `undefined` (and no change) when none is held. */
  set(seq: number, value: T): T | undefined {
    const at = this.#find(seq)
    if (this.#seqs[at] !== seq) return undefined
    const old = this.#values[at]
    this.#values[at] = value
    return old
  }

  /** Replaces every value held for a seq up to `through` by one `value` held for `through`; returns the removed ones. */
  replaceThrough(through: number, value: T): T[] {
    const end = this.#find(through + 1)
    this.#seqs.splice(0, end, through)
    return this.#values.splice(0, end, value)
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
