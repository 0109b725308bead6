/**
 * A persistent append-only list (Q1.1): every snapshot is an O(1) view of a prefix that never
 * changes, so handing the whole history to a reader costs the same at 1M items as at 1k.
 */

/**
 * A read-only, immutable sequence: what `session.history()` returns and what a model request
 * carries. A plain frozen array satisfies it, so callers may pass one.
 */
export interface History<T> extends Iterable<T> {
  readonly length: number
  /** The item at `index` (negative counts from the end), `undefined` outside the list. */
  at(index: number): T | undefined
  /** A frozen array of the items in `[start, end)`, with `Array.prototype.slice`'s index rules. */
  slice(start?: number, end?: number): readonly T[]
}

/** Items per chunk; a power of two so an index splits with a shift and a mask. */
const BITS = 10
const CHUNK = 1 << BITS
const MASK = CHUNK - 1

/** Clamps a `slice` bound the way `Array.prototype.slice` does. */
function bound(value: number | undefined, length: number, fallback: number): number {
  if (value === undefined) return fallback
  const n = Math.trunc(value) || 0
  return n < 0 ? Math.max(length + n, 0) : Math.min(n, length)
}

/**
 * One frozen snapshot: the first `length` items of chunks that only ever grow at their end,
 * so nothing this snapshot can see ever changes.
 */
class Snapshot<T> implements History<T> {
  readonly length: number
  readonly #chunks: readonly (readonly T[])[]

  constructor(chunks: readonly (readonly T[])[], length: number) {
    this.length = length
    this.#chunks = chunks
    Object.freeze(this)
  }

  at(index: number): T | undefined {
    let i = Math.trunc(index) || 0
    if (i < 0) i += this.length
    if (i < 0 || i >= this.length) return undefined
    return this.#chunks[i >>> BITS]![i & MASK]
  }

  slice(start?: number, end?: number): readonly T[] {
    const from = bound(start, this.length, 0)
    const to = bound(end, this.length, this.length)
    const out: T[] = []
    for (let i = from; i < to; i++) out.push(this.#chunks[i >>> BITS]![i & MASK]!)
    return Object.freeze(out)
  }

  *[Symbol.iterator](): Iterator<T> {
    const chunks = this.#chunks
    for (let i = 0; i < this.length; i++) yield chunks[i >>> BITS]![i & MASK]!
  }

  /** Serializes like the array of its items, so `JSON.stringify(history)` equals that of `slice()`. */
  toJSON(): readonly T[] {
    return this.slice()
  }
}

/**
 * The writer side: `push` is O(1) and never moves or changes an item already pushed (a full
 * chunk is frozen once); `snapshot()` is O(1) and returns the same object until the next push.
 */
export class AppendOnlyList<T> {
  readonly #chunks: T[][] = [[]]
  #length = 0
  #snapshot: Snapshot<T> = new Snapshot(this.#chunks, 0)

  get length(): number {
    return this.#length
  }

  push(item: T): void {
    let last = this.#chunks[this.#chunks.length - 1]!
    if (last.length === CHUNK) {
      Object.freeze(last)
      last = []
      this.#chunks.push(last)
    }
    last.push(item)
    this.#length++
  }

  /** The immutable view of everything pushed so far. */
  snapshot(): History<T> {
    if (this.#snapshot.length !== this.#length) this.#snapshot = new Snapshot(this.#chunks, this.#length)
    return this.#snapshot
  }
}
