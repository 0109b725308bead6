/**
 * The options of `createToolRuntime` (docs/architecture.md, "The public API at a glance") and
 * their validation.
 */
import type { CodeRuntime } from '../contract/code-runtime.js'
import type { Approver } from '../contract/execution.js'
import { definitionError } from '../foundation/errors.js'
import { checkToolMode, type ToolMode } from '../registry/tool-mode.js'
import { DEFAULT_MAX_CONTENT_BYTES } from './content-policy.js'

/** What `createToolRuntime` accepts; every option is optional. */
export interface ToolRuntimeOptions {
  /** The default mode of every view (M1.1); `'native'` when omitted. */
  mode?: ToolMode
  /** The approver for `ask` decisions when the call brings none (P4.1); none fails closed. */
  approver?: Approver
  /** The code runtime `run_code` uses when the call brings none (X1.6). */
  codeRuntime?: CodeRuntime
  /** Installs the built-in timeout wrapper as the outermost wrapper (P7.1); default `true`. */
  timeout?: boolean
  /** The content-size cap in UTF-8 bytes of text (P11.8); default 262144, `Infinity` disables. */
  maxContentBytes?: number
  /** The Code Mode sub-call pool size (X6.2); default 10. */
  maxParallelSubCalls?: number
  /** Where contained observer and sink errors go (P12.3); default `console.error`. */
  reportError?: (error: unknown) => void
}

/** The options after validation, with defaults applied. */
export interface ResolvedOptions {
  readonly mode: ToolMode
  readonly approver: Approver | undefined
  readonly codeRuntime: CodeRuntime | undefined
  readonly timeout: boolean
  readonly maxContentBytes: number
  readonly maxParallelSubCalls: number
  readonly reportError: (error: unknown) => void
}

const KNOWN = [
  'mode',
  'approver',
  'codeRuntime',
  'timeout',
  'maxContentBytes',
  'maxParallelSubCalls',
  'reportError',
]

/** The default `reportError`: `console.error`, looked up when an error is reported. */
const reportToConsole = (error: unknown) => console.error(error)

function fail(option: string, rule: string): never {
  throw definitionError(`createToolRuntime() option "${option}" ${rule}`)
}

/**
 * Validates `options` and applies the defaults. Throws `INVALID_DEFINITION` for an unknown
 * option or a value of the wrong kind (M1.1, P11.8, X6.2).
 */
export function resolveOptions(options: unknown): ResolvedOptions {
  if (options === undefined) options = {}
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw definitionError('createToolRuntime() options must be an object')
  }
  for (const key of Object.keys(options)) {
    if (!KNOWN.includes(key)) fail(key, `is not known; the options are ${KNOWN.join(', ')}`)
  }
  const o = options as Record<string, unknown>
  const mode = o.mode === undefined ? 'native' : checkToolMode(o.mode, 'createToolRuntime() option "mode"')
  const approver = o.approver
  if (approver !== undefined && typeof approver !== 'function') fail('approver', 'must be a function')
  const codeRuntime = o.codeRuntime
  if (
    codeRuntime !== undefined &&
    (codeRuntime === null ||
      typeof codeRuntime !== 'object' ||
      typeof (codeRuntime as CodeRuntime).run !== 'function')
  ) {
    fail('codeRuntime', 'must be a code runtime { language, isolation, run }')
  }
  const timeout = o.timeout === undefined ? true : o.timeout
  if (typeof timeout !== 'boolean') fail('timeout', 'must be a boolean')
  const maxContentBytes = o.maxContentBytes === undefined ? DEFAULT_MAX_CONTENT_BYTES : o.maxContentBytes
  if (
    maxContentBytes !== Number.POSITIVE_INFINITY &&
    !(Number.isSafeInteger(maxContentBytes) && (maxContentBytes as number) > 0)
  ) {
    fail('maxContentBytes', 'must be a positive integer or Infinity')
  }
  const maxParallelSubCalls = o.maxParallelSubCalls === undefined ? 10 : o.maxParallelSubCalls
  if (!(Number.isSafeInteger(maxParallelSubCalls) && (maxParallelSubCalls as number) > 0)) {
    fail('maxParallelSubCalls', 'must be a positive integer')
  }
  const reportError = o.reportError === undefined ? reportToConsole : o.reportError
  if (typeof reportError !== 'function') fail('reportError', 'must be a function')
  return Object.freeze({
    mode,
    approver: approver as Approver | undefined,
    codeRuntime: codeRuntime as CodeRuntime | undefined,
    timeout,
    maxContentBytes: maxContentBytes as number,
    maxParallelSubCalls: maxParallelSubCalls as number,
    reportError: reportError as (error: unknown) => void,
  })
}
