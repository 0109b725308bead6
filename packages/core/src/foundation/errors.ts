/** Every error code tooltx produces (SPEC §E, the error-code table). */
export type ToolErrorCode =
  | 'UNKNOWN_TOOL'
  | 'INVALID_ARGS'
  | 'INVALID_TOOL_OUTPUT'
  | 'TOOL_FAILED'
  | 'DENIED'
  | 'BLOCKED'
  | 'HOOK_FAILED'
  | 'TOOL_TIMEOUT'
  | 'ABORTED'
  | 'ABORTED_BEFORE_DISPATCH'
  | 'CODE_RUN_FAILED'
  | 'RESULT_NOT_SERIALIZABLE'
  | 'TOOL_NOT_STARTED'
  | 'TOOL_OUTCOME_UNKNOWN'
  | 'TOOL_EFFECT_RECORDED'
  | 'UNSUPPORTED_SCHEMA'
  | 'INVALID_DEFINITION'
  | 'INVARIANT'
  | 'APPROVAL_CONFLICT'
  | 'APPROVAL_REFUSED'

/** The `info.name` that belongs to each built-in code (SPEC §E table). */
export const ERROR_NAMES: Readonly<Record<ToolErrorCode, string>> = Object.freeze({
  UNKNOWN_TOOL: 'ToolNotFoundError',
  INVALID_ARGS: 'ToolArgsError',
  INVALID_TOOL_OUTPUT: 'ToolOutputError',
  TOOL_FAILED: 'ToolFailedError',
  DENIED: 'ToolDeniedError',
  BLOCKED: 'ToolBlockedError',
  HOOK_FAILED: 'HookFailedError',
  TOOL_TIMEOUT: 'ToolTimeoutError',
  ABORTED: 'AbortError',
  ABORTED_BEFORE_DISPATCH: 'AbortError',
  CODE_RUN_FAILED: 'CodeRunFailedError',
  RESULT_NOT_SERIALIZABLE: 'ResultNotSerializableError',
  TOOL_NOT_STARTED: 'ToolNotStartedError',
  TOOL_OUTCOME_UNKNOWN: 'ToolOutcomeUnknownError',
  TOOL_EFFECT_RECORDED: 'ToolEffectRecordedError',
  UNSUPPORTED_SCHEMA: 'SchemaError',
  INVALID_DEFINITION: 'DefinitionError',
  INVARIANT: 'InvariantError',
  APPROVAL_CONFLICT: 'ApprovalConflictError',
  APPROVAL_REFUSED: 'ApprovalRefusedError',
})

const CODE_PATTERN = /^[A-Z][A-Z0-9_]*$/

/**
 * A coded error. Thrown by a body, hook or finalizer it keeps its `name`, `code` and
 * `message` in the failure result (E1.3); thrown by tooltx itself it reports a caller
 * mistake (`UNSUPPORTED_SCHEMA`, `INVALID_DEFINITION`, `INVARIANT`). A `code` that is not
 * UPPER_SNAKE_CASE throws `TypeError` (E1.2).
 */
export class ToolError extends Error {
  /** The machine-readable code: a built-in `ToolErrorCode` or the author's own. */
  declare readonly code: string

  constructor(code: ToolErrorCode | (string & {}), message: string, options: { name?: string } = {}) {
    if (typeof code !== 'string' || !CODE_PATTERN.test(code)) {
      throw new TypeError(`ToolError code must match ${CODE_PATTERN}, got ${safeString(code)}`)
    }
    super(message)
    // Own properties, so a structured clone or a log of the error keeps them.
    Object.defineProperty(this, 'code', {
      value: code,
      enumerable: true,
      writable: false,
      configurable: true,
    })
    Object.defineProperty(this, 'name', {
      value: options.name ?? 'ToolError',
      enumerable: false,
      writable: true,
      configurable: true,
    })
  }
}

/** Creates a `ToolError` whose `name` is the table's name for a built-in `code`. */
export function codedError(code: ToolErrorCode, message: string): ToolError {
  return new ToolError(code, message, { name: ERROR_NAMES[code] })
}

/** The `invariant violated: <what>` error of V1.1. */
export function invariantError(what: string): ToolError {
  return codedError('INVARIANT', `invariant violated: ${what}`)
}

/** The error `INVALID_DEFINITION` with the given message (thrown to registrants, E3.1). */
export function definitionError(message: string): ToolError {
  return codedError('INVALID_DEFINITION', message)
}

/**
 * The message of any thrown value, total (E2): `x.message` for an `Error` or any object
 * with a string `message`, `String(x)` otherwise, and `<unprintable thrown value>` when
 * inspecting or converting `x` throws. Never throws.
 */
export function errorMessage(x: unknown): string {
  try {
    if (x !== null && (typeof x === 'object' || typeof x === 'function')) {
      const message = (x as { message?: unknown }).message
      if (typeof message === 'string') return message
    }
    return String(x)
  } catch {
    return UNPRINTABLE
  }
}

const UNPRINTABLE = '<unprintable thrown value>'

/**
 * Reads `{ name, code, message }` from a thrown value when it is a `ToolError` of this package
 * (`instanceof`; look-alike objects and Node's coded system errors are not); `undefined`
 * otherwise. Total (E1.5): a throwing or non-string (or empty) `name`/`code`, or a Proxy whose
 * traps throw, means "not a ToolError".
 */
export function readToolError(x: unknown): { name: string; code: string; message: string } | undefined {
  try {
    if (!(x instanceof ToolError)) return undefined
    const code: unknown = x.code
    const name: unknown = x.name
    if (typeof code !== 'string' || typeof name !== 'string' || code === '' || name === '') return undefined
    return { name, code, message: errorMessage(x) }
  } catch {
    return undefined
  }
}

function safeString(x: unknown): string {
  try {
    return typeof x === 'string' ? JSON.stringify(x) : String(x)
  } catch {
    return UNPRINTABLE
  }
}
