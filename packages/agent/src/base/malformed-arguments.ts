/**
 * Raw argument text that is not JSON (L4.2, L4.7): what the model reads instead of a type
 * error about the string L4.1 falls back to.
 */
import type { ToolFailure } from '@tooltx/core'
import { ERROR_NAMES } from '@tooltx/core/internal'

const END_OF_INPUT = 'Unexpected end of JSON input'

/**
 * Why `raw` is not JSON, as `arguments are not valid JSON: <the parser's message>`, or
 * `undefined` when it is blank (L4.1's `{}`) or JSON. The parser's message names what it found
 * and where; one that only says the text ended gets ` at position <length>`. Never throws.
 */
export function malformedArguments(raw: string): string | undefined {
  if (raw.trim() === '') return undefined
  try {
    JSON.parse(raw)
    return undefined
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    const where = message === END_OF_INPUT ? ` at position ${raw.length}` : ''
    return `arguments are not valid JSON: ${message}${where}`
  }
}

/**
 * The deep-frozen `INVALID_ARGS` failure of a call whose raw arguments are not JSON:
 * `invalid arguments: <reason>`, its content `Error: invalid arguments: <reason>` (E1.7).
 */
export function malformedArgumentsFailure(reason: string): ToolFailure {
  const message = `invalid arguments: ${reason}`
  return Object.freeze({
    isError: true as const,
    error: Object.freeze({
      message,
      info: Object.freeze({ name: ERROR_NAMES.INVALID_ARGS, code: 'INVALID_ARGS' }),
    }),
    content: Object.freeze([Object.freeze({ type: 'text' as const, text: `Error: ${message}` })]),
  })
}
