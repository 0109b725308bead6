/**
 * The regular expressions of a server's schemas, run on RE2 (`re2js`, pure JavaScript): its
 * matching time is linear in the text, so no `pattern` a server sends (`^(a+)+$`, say) can
 * freeze the process, which a tool timeout cannot stop once a synchronous match runs (Y2.15).
 */
import { errorMessage } from '@tooltx/core/internal'
import { RE2JS } from 're2js'

/** A server's pattern that RE2 cannot run (a backreference, a lookaround) or that does not parse (Y2.16). */
export class UnsafePatternError extends Error {}

/** The longest stretch of a pattern a message quotes. */
const SHOWN = 80

/**
 * Compiles `pattern` (JavaScript syntax, as JSON Schema writes it) for RE2; `test` searches
 * unanchored, as JSON Schema's `pattern` does. Throws {@link UnsafePatternError} naming the
 * pattern and RE2's reason for one RE2 refuses.
 */
export function linearPattern(pattern: string): { test(text: string): boolean } {
  try {
    return RE2JS.compile(RE2JS.translateRegExp(pattern))
  } catch (error) {
    const shown = pattern.length > SHOWN ? `${pattern.slice(0, SHOWN)}…` : pattern
    throw new UnsafePatternError(
      `the pattern ${JSON.stringify(shown)} cannot be matched in linear time (RE2: ${errorMessage(error)}); ` +
        'tooltx runs only RE2 patterns (no backreferences or lookarounds) from a server',
    )
  }
}

/** {@link linearPattern} as ajv's `code.regExp` engine; `code` names it in ajv's standalone output, unused here. */
export const ajvLinearPattern = Object.assign((pattern: string, _flags: string) => linearPattern(pattern), {
  code: 'linearPattern',
})
