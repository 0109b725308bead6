/**
 * The JSON text `run_code` renders a non-string result as (X1.4, X1.11): iterative, so any
 * nesting depth renders, and linear in the value's size, because indentation stops growing
 * at `PRETTY_DEPTH`.
 */
import type { JsonObject, JsonValue } from '../foundation/lossless-json.js'

/** Containers nested this deep or deeper are written compactly, as `JSON.stringify(value)` would. */
export const PRETTY_DEPTH = 20

/** `INDENTS[d]` is the line break and indentation before an entry at depth `d`. */
const INDENTS = Array.from({ length: PRETTY_DEPTH + 1 }, (_, depth) => `\n${'  '.repeat(depth)}`)

interface Frame {
  readonly array: JsonValue[] | undefined
  readonly object: JsonObject | undefined
  readonly keys: string[] | undefined
  readonly length: number
  readonly depth: number
  index: number
}

/**
 * `value` as `JSON.stringify(value, null, 2)` writes it, except that containers at depth
 * `PRETTY_DEPTH` (the root is depth 0) and below are written without whitespace. Never
 * recurses; `value` must be lossless JSON.
 */
export function renderJson(value: JsonValue): string {
  const out: string[] = []
  const stack: Frame[] = []
  let next: JsonValue = value
  for (;;) {
    if (next === null || typeof next !== 'object') out.push(JSON.stringify(next))
    else {
      const array = Array.isArray(next) ? next : undefined
      const object = array === undefined ? (next as JsonObject) : undefined
      const keys = object === undefined ? undefined : Object.keys(object)
      const length = array?.length ?? keys!.length
      if (length === 0) out.push(array === undefined ? '{}' : '[]')
      else {
        out.push(array === undefined ? '{' : '[')
        stack.push({ array, object, keys, length, depth: stack.length, index: 0 })
      }
    }
    // Move to the next value to write, closing every finished container on the way.
    for (;;) {
      const frame = stack[stack.length - 1]
      if (frame === undefined) return out.join('')
      const pretty = frame.depth < PRETTY_DEPTH
      if (frame.index < frame.length) {
        const at = frame.index++
        if (at > 0) out.push(',')
        if (pretty) out.push(INDENTS[frame.depth + 1]!)
        if (frame.keys === undefined) next = frame.array![at]!
        else {
          const key = frame.keys[at]!
          out.push(JSON.stringify(key), pretty ? ': ' : ':')
          next = frame.object![key]!
        }
        break
      }
      stack.pop()
      if (pretty) out.push(INDENTS[frame.depth]!)
      out.push(frame.keys === undefined ? ']' : '}')
    }
  }
}
