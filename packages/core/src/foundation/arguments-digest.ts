/** The arguments digest (P4.9) and the idempotency key derived from it (F1.2). */
import type { JsonValue } from './lossless-json.js'
import { sha256Hex } from './sha256.js'

/** A piece of already-encoded JSON text on the serializer's work stack. */
class Text {
  constructor(readonly text: string) {}
}

/**
 * The canonical JSON of a lossless value (P4.9): object keys sorted by UTF-16 code unit,
 * no whitespace. Iterative, so deeply nested arguments cannot overflow the stack.
 */
export function canonicalJson(value: JsonValue): string {
  let out = ''
  const work: (JsonValue | Text)[] = [value]
  while (work.length > 0) {
    const item = work.pop()!
    if (item instanceof Text) {
      out += item.text
    } else if (item === null || typeof item !== 'object') {
      out += JSON.stringify(item)
    } else if (Array.isArray(item)) {
      work.push(new Text(']'))
      for (let i = item.length - 1; i >= 0; i--) {
        work.push(item[i]!)
        if (i > 0) work.push(new Text(','))
      }
      work.push(new Text('['))
    } else {
      const keys = Object.keys(item).sort()
      work.push(new Text('}'))
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i]!
        work.push(item[key]!)
        work.push(new Text(`${i > 0 ? ',' : ''}${JSON.stringify(key)}:`))
      }
      work.push(new Text('{'))
    }
  }
  return out
}

/** Lowercase hex SHA-256 of the canonical JSON of `args` (P4.9). */
export async function argumentsDigest(args: JsonValue): Promise<string> {
  return sha256Hex(canonicalJson(args))
}

/**
 * The idempotency key of a call (F1.2): lowercase hex SHA-256 of the canonical JSON of
 * `[scope, callId, argumentsDigest(arguments)]`. The same inputs give the same key in any process, so a
 * retry and a resume of a call pass its backend the same key.
 */
export function idempotencyKey(parts: {
  readonly scope: string
  readonly callId: string
  readonly arguments: JsonValue
}): string {
  const digest = sha256Hex(canonicalJson(parts.arguments))
  return sha256Hex(canonicalJson([parts.scope, parts.callId, digest]))
}
