/** The three ways a view offers tools to the model (M1, M2). */
import { definitionError } from '../foundation/errors.js'

/** `native`: tools are called directly; `code`: only `run_code`; `both`: all of them. */
export type ToolMode = 'native' | 'code' | 'both'

/** Returns `mode` when it is one of the three modes, else throws `INVALID_DEFINITION` naming `what`. */
export function checkToolMode(mode: unknown, what: string): ToolMode {
  if (mode === 'native' || mode === 'code' || mode === 'both') return mode
  throw definitionError(`${what} must be 'native', 'code' or 'both'`)
}

/**
 * The model-facing rule of `code` mode (M2.3): the first line of its instructions.
 */
export const CODE_ONLY_RULE =
  'Only `run_code` is callable directly; call every other tool from inside a `run_code` program through the `tools` object.'
