/**
 * The `run_code` transport entry (X1.1–X1.6): the definition every `code`/`both` view
 * synthesizes, and the seam where a program run starts. Running programs (bindings,
 * nested dispatch, sub-call scheduling, dispatch events) is `runCodeBody`'s job.
 */
import type { CodeDispatchSink, CodeRuntime } from '../code-runtime.js'
import type { ContentBlock } from '../content.js'
import { type AnyToolDefinition, RUN_CODE } from '../definition.js'
import { codedError } from '../errors.js'
import type { Approver, RunContext, ToolScope } from '../execution.js'
import type { JsonObject, JsonValue } from '../lossless-json.js'
import type { CallView } from '../presentation.js'
import type { ToolResult } from '../result.js'
import type { ExecuteInput } from '../runtime/core.js'
import { NO_CODE_RUNTIME } from '../runtime/failures.js'
import type { ToolView } from '../runtime/scope-view.js'
import { schemaToTypeScript } from '../schema/typescript.js'
import { compileValidator } from '../schema/validate.js'

/** The value of a successful run (X1.3): the captured log lines and the program's result, if any. */
export interface RunCodeValue extends JsonObject {
  logs: string[]
}

/** What the runtime that owns a `run_code` definition provides to it. */
export interface RunCodeHost {
  /** The Code Mode inputs the execution with this token read at entry (I1.1), while it is in progress. */
  callInputs(token: symbol): RunCodeCallInputs | undefined
  /** `createToolRuntime({ codeRuntime })`. */
  readonly defaultCodeRuntime: CodeRuntime | undefined
  /** `createToolRuntime({ maxParallelSubCalls })` (X6.2). */
  readonly maxParallelSubCalls: number
  /** Where contained sink errors go (X5.5). */
  readonly reportError: (error: unknown) => void
  /** The runtime's `execute`, for nested dispatch (X4.1). */
  execute(input: ExecuteInput): Promise<ToolResult>
  /** The live view of a scope (R4.1), for bindings and the SDK. */
  view(scope: ToolScope | undefined): ToolView
}

/** The per-call inputs of a `run_code` call. */
export interface RunCodeCallInputs {
  readonly codeRuntime: CodeRuntime | undefined
  readonly onCodeDispatch: CodeDispatchSink | undefined
  readonly approver: Approver | undefined
  readonly scope: ToolScope | undefined
}

/** Everything one program run needs (the input of `runCodeBody`). */
export interface RunCodeRequest {
  /** The TypeScript program. */
  readonly code: string
  /** The model's one-line description of the program. */
  readonly description: string
  /** The run context of the `run_code` call (outer callId, token, fused signal). */
  readonly run: RunContext
  /** The code runtime chosen per X1.6. */
  readonly codeRuntime: CodeRuntime
  /** The dispatch-event sink of the call, if any (X5). */
  readonly onCodeDispatch: CodeDispatchSink | undefined
  /** The approver the call brought, forwarded to nested calls (X4.1). */
  readonly approver: Approver | undefined
  /** The runtime that owns the call. */
  readonly host: RunCodeHost
}

/**
 * Runs one program and resolves with the `run_code` value, or throws a `ToolError` for the
 * failure. This is the seam the Code Mode runner plugs into; until it does, every run fails
 * with `CODE_RUN_FAILED` and the message of X1.6.
 */
export async function runCodeBody(_request: RunCodeRequest): Promise<RunCodeValue> {
  throw codedError('CODE_RUN_FAILED', NO_CODE_RUNTIME)
}

const PARAMETERS = Object.freeze({
  type: 'object',
  properties: Object.freeze({
    code: Object.freeze({
      type: 'string',
      description:
        'A TypeScript program, run as the body of an async function. Call tools as `await tools.<name>(args)`; `return` a JSON value to report it; `console.log` lines are captured.',
    }),
    description: Object.freeze({
      type: 'string',
      description: 'One short line saying what the program does; shown to the user.',
    }),
  }),
  required: Object.freeze(['code', 'description']),
}) as unknown as JsonObject

const OUTPUT_SCHEMA = Object.freeze({
  type: 'object',
  additionalProperties: false,
  properties: Object.freeze({
    logs: Object.freeze({ type: 'array', items: Object.freeze({ type: 'string' }) }),
    result: Object.freeze({}),
  }),
  required: Object.freeze(['logs']),
}) as unknown as JsonObject

/** X1.4: log lines, then the result (strings as is, other JSON pretty-printed), or a placeholder. */
function render(_args: unknown, value: RunCodeValue): ContentBlock[] {
  const parts: string[] = [...value.logs]
  if ('result' in value) {
    const result = value.result as JsonValue
    parts.push(typeof result === 'string' ? result : JSON.stringify(result, null, 2))
  }
  return [
    { type: 'text', text: parts.length === 0 ? '(run_code completed with no output)' : parts.join('\n') },
  ]
}

/** X1.5: the call card; `undefined` (the generic fallback) when the arguments do not fit. */
function presentCall(args: unknown): CallView | undefined {
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return undefined
  const { code, description } = args as { code?: unknown; description?: unknown }
  if (typeof code !== 'string' || typeof description !== 'string') return undefined
  return { card: 'generic', title: description, kind: 'execute', rawInput: code }
}

/**
 * The frozen `run_code` definition of one runtime (X1.1–X1.5): parameters `code` and
 * `description` (both required strings), the closed output `{ logs, result? }`, its
 * renderer and call card, no result presenter, no `isConcurrencySafe` and no `timeoutMs`
 * (X1.10). Its body validates the arguments (INVALID_ARGS, X1.2), picks the call's code
 * runtime or the runtime default, fails with CODE_RUN_FAILED when there is none (X1.6), and
 * otherwise hands the run to `runCodeBody`.
 */
export function runCodeDefinition(host: RunCodeHost): AnyToolDefinition {
  const checkArgs = compileValidator(PARAMETERS)
  const execute = async (args: JsonValue, run: RunContext): Promise<RunCodeValue> => {
    const violations = checkArgs(args, 'arguments')
    if (violations.length > 0) throw codedError('INVALID_ARGS', `invalid arguments: ${violations.join('; ')}`)
    const { code, description } = args as { code: string; description: string }
    if (description.trim() === '') {
      throw codedError('INVALID_ARGS', 'invalid arguments: "description" must not be blank')
    }
    const inputs = host.callInputs(run.token)
    const codeRuntime = inputs?.codeRuntime ?? host.defaultCodeRuntime
    if (codeRuntime === undefined) throw codedError('CODE_RUN_FAILED', NO_CODE_RUNTIME)
    return runCodeBody({
      code,
      description,
      run,
      codeRuntime,
      onCodeDispatch: inputs?.onCodeDispatch,
      approver: inputs?.approver,
      host,
    })
  }
  return Object.freeze({
    name: RUN_CODE,
    description:
      'Run a TypeScript program that calls the tools listed in the instructions through the `tools` object and returns a JSON result.',
    parameters: PARAMETERS,
    output: Object.freeze({ schema: OUTPUT_SCHEMA, render }),
    execute,
    presentCall,
  }) as AnyToolDefinition
}

/**
 * The SDK text the instructions of a `code`/`both` view carry (M2.3, M2.4), for the tools
 * `tools.*` can dispatch (run_code excluded, sorted by name). This is the seam the Code
 * Mode SDK renderer (X2) plugs into; until then it declares each tool's call signature.
 */
export function sdkText(definitions: readonly AnyToolDefinition[]): string {
  const tools = definitions
    .filter((def) => def.name !== RUN_CODE)
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  const lines = tools.map((def) => {
    const summary = def.description.replace(/\s+/g, ' ').trim().replace(/\*\//g, '*\\/')
    return `  /** ${summary} */\n  ${JSON.stringify(def.name)}: (args: ${schemaToTypeScript(def.parameters)}) => Promise<${schemaToTypeScript(def.output.schema)}>`
  })
  return [
    'Call tools from a `run_code` program through this object:',
    '```ts',
    'declare const tools: {',
    ...lines,
    '}',
    '```',
  ].join('\n')
}
