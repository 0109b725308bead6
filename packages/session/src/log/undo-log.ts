/**
 * The changes the log's state transitions (`log-transitions.ts`) make: every change to the log
 * state goes through one of these, so undoing a batch needs no undo code per event type.
 */
export interface Changes {
  /** `target[key] = value`. */
  set<T extends object, K extends keyof T>(target: T, key: K, value: T[K]): void
  /** Adds `value` to `set`. */
  add<V>(set: Set<V>, value: V): void
  /** `map.set(key, value)`. */
  put<K, V>(map: Map<K, V>, key: K, value: V): void
  /** `map.delete(key)`. */
  remove<K, V>(map: Map<K, V>, key: K): void
  /** Empties `map`. */
  clear<K, V>(map: Map<K, V>): void
  /** Appends `value` to `list`. */
  push<V>(list: V[], value: V): void
}

/** Changes made in place with no way back, for a log that is replayed rather than appended to. */
export const inPlace: Changes = {
  set: (target, key, value) => {
    target[key] = value
  },
  add: (set, value) => set.add(value),
  put: (map, key, value) => map.set(key, value),
  remove: (map, key) => map.delete(key),
  clear: (map) => map.clear(),
  push: (list, value) => list.push(value),
}

// The inverse operations `UndoLog` records, one code each.
/** `target[key] = value` */
const SET = 0
/** `set.delete(value)` */
const DELETE = 1
/** `map.set(key, value)`, at its old position when that was not the end */
const PUT = 2
/** `map.delete(key)` */
const UNPUT = 3
/** `map` refilled with `entries` */
const REFILL = 4
/** `list.pop()` */
const POP = 5

type AnyMap = Map<unknown, unknown>

/**
 * Changes made in place that also record each one's inverse, four slots per change in one flat
 * array (no allocation per change beyond the array's growth). `rollback` applies the inverses
 * newest first, which restores the state exactly — Map entry order included — as it was when
 * the log was made; a batch that is refused or fails to write leaves no trace (L1.4, V1.4).
 */
export class UndoLog implements Changes {
  readonly #ops: unknown[] = []

  set<T extends object, K extends keyof T>(target: T, key: K, value: T[K]): void {
    const old = target[key]
    if (old === value) return
    this.#ops.push(SET, target, key, old)
    target[key] = value
  }

  add<V>(set: Set<V>, value: V): void {
    if (set.has(value)) return
    set.add(value)
    this.#ops.push(DELETE, set, value, undefined)
  }

  put<K, V>(map: Map<K, V>, key: K, value: V): void {
    // A key that is already there keeps its position in the map, so its old value goes back in place.
    if (map.has(key)) this.#ops.push(PUT, map, key, [map.get(key), -1])
    else this.#ops.push(UNPUT, map, key, undefined)
    map.set(key, value)
  }

  remove<K, V>(map: Map<K, V>, key: K): void {
    if (!map.has(key)) return
    // Put back where it was: an entry re-set after deletion would go to the end of the map.
    let index = 0
    for (const k of map.keys()) {
      if (k === key) break
      index++
    }
    this.#ops.push(PUT, map, key, [map.get(key), index])
    map.delete(key)
  }

  clear<K, V>(map: Map<K, V>): void {
    if (map.size === 0) return
    this.#ops.push(REFILL, map, [...map], undefined)
    map.clear()
  }

  push<V>(list: V[], value: V): void {
    list.push(value)
    this.#ops.push(POP, list, undefined, undefined)
  }

  /** Undoes every change recorded, newest first, and forgets them. */
  rollback(): void {
    const ops = this.#ops
    for (let i = ops.length - 4; i >= 0; i -= 4) {
      const target = ops[i + 1]
      const key = ops[i + 2]
      switch (ops[i]) {
        case SET:
          ;(target as Record<PropertyKey, unknown>)[key as PropertyKey] = ops[i + 3]
          break
        case DELETE:
          ;(target as Set<unknown>).delete(key)
          break
        case PUT: {
          const [value, index] = ops[i + 3] as [unknown, number]
          putAt(target as AnyMap, key, value, index)
          break
        }
        case UNPUT:
          ;(target as AnyMap).delete(key)
          break
        case REFILL:
          for (const [k, v] of key as [unknown, unknown][]) (target as AnyMap).set(k, v)
          break
        case POP:
          ;(target as unknown[]).pop()
          break
      }
    }
    ops.length = 0
  }
}

/** `map.set(key, value)` with the entry at position `index` (-1: wherever `set` leaves it). */
function putAt(map: AnyMap, key: unknown, value: unknown, index: number): void {
  if (index < 0 || index >= map.size) {
    map.set(key, value)
    return
  }
  const entries = [...map]
  entries.splice(index, 0, [key, value])
  map.clear()
  for (const [k, v] of entries) map.set(k, v)
}
