/**
 * The `run_code` transport entry (X1.1–X1.6): the definition every `code`/`both` view
 * synthesizes, and `runCodeBody`, which runs one program and turns its outcome into the
 * `run_code` value or failure (X1.7–X1.9). Bindings and nested dispatch live in
 * `code-run.ts` (`CodeRun`), the sub-call scheduler in `sub-call-scheduler.ts`.
 */
import type { CodeRunResult } from '../contract/code-runtime.js'
import type { ContentBlock } from '../contract/content.js'
import { type AnyToolDefinition, RUN_CODE } from '../contract/definition.js'
import type { RunContext } from '../contract/execution.js'
import type { CallView } from '../contract/presentation.js'
import type { ProvenanceLabel } from '../contract/provenance.js'
import { codedError, errorMessage } from '../foundation/errors.js'
import type { JsonObject, JsonValue } from '../foundation/lossless-json.js'
import { compileValidator } from '../schema/validate.js'
import { CodeRun } from './code-run.js'
import type { RunCodeHost, RunCodeRequest, RunCodeValue } from './host.js'
import { renderJson } from './render-json.js'

/** `run_code` without any code runtime (X1.6). */
const NO_CODE_RUNTIME = 'run_code requires a code runtime, but none is configured'

/** The kind of a failed run and its message, built per X1.7 with the captured output. */
function failureMessage(error: { kind: string; message: string }, logs: readonly string[]): string {
  const head = `code run failed (${error.kind}): ${error.message}`
  return logs.length === 0 ? head : `${head}\nCaptured output:\n${logs.join('\n')}`
}

/** The parts of a code runtime's resolution we rely on, or `undefined` when it breaks the seam (X8.1). */
function readRunResult(raw: unknown): CodeRunResult | undefined {
  if (raw === null || typeof raw !== 'object') return undefined
  const { value, logs, error } = raw as Partial<CodeRunResult>
  if (!Array.isArray(logs) || !logs.every((line) => typeof line === 'string')) return undefined
  const read: CodeRunResult = { logs: [...logs] }
  if (value !== undefined) read.value = value
  if (error !== undefined) {
    if (error === null || typeof error !== 'object') return undefined
    if (typeof error.kind !== 'string' || typeof error.message !== 'string') return undefined
    read.error = { kind: error.kind, message: error.message }
  }
  return read
}

/**
 * Runs one program (X1.7–X1.9, X7): builds the bindings from the scope's view, runs the
 * program on the chosen code runtime with the run-scoped signal, settles the run (queued
 * sub-calls abandoned, in-flight ones aborted and awaited, sink drained) and only then
 * resolves with `{ logs, result? }` or throws: `ABORTED` for an abort caused by the outer
 * signal, `CODE_RUN_FAILED` for any other program failure, `TOOL_FAILED` when the code
 * runtime rejects or resolves with something that is not a run result. Nested contexts are
 * re-deferred onto the outer call whatever the outcome; the outer call concludes the turn
 * when a nested success did and the program succeeded.
 */
export async function runCodeBody(request: RunCodeRequest): Promise<RunCodeValue> {
  const { run, codeRuntime } = request
  const codeRun = new CodeRun(request)
  let outcome: CodeRunResult | undefined
  let rejection: { error: unknown } | undefined
  try {
    outcome = readRunResult(
      await codeRuntime.run({ program: request.code, bindings: codeRun.bindings, signal: codeRun.signal }),
    )
    if (outcome === undefined) rejection = { error: new Error(MALFORMED_RESULT) }
  } catch (error) {
    rejection = { error }
  }
  const failed = rejection !== undefined || outcome?.error !== undefined
  await codeRun.settle(run.signal.aborted ? 'aborted' : failed ? 'failed' : 'completed')
  // What the program read from labelled results can be in what it returns or logs (H4.2).
  const label = codeRun.provenance.label()
  if (label !== undefined && run.arguments !== null && typeof run.arguments === 'object') {
    RUN_LABELS.set(run.arguments, label)
  }
  if (outcome === undefined) throw codedError('TOOL_FAILED', errorMessage(rejection?.error))
  if (outcome.error !== undefined) {
    if (outcome.error.kind === 'abort' && run.signal.aborted) throw codedError('ABORTED', 'tool call aborted')
    throw codedError('CODE_RUN_FAILED', failureMessage(outcome.error, outcome.logs))
  }
  if (codeRun.concludes) run.concludeTurn()
  const value: RunCodeValue = { logs: outcome.logs }
  if (outcome.value !== undefined) value.result = outcome.value
  return value
}

/**
 * The label of each finished run, by the run's frozen arguments — the one object both the body and
 * the definition's `provenance` function receive for a call — so a failed run is labelled too.
 */
const RUN_LABELS = new WeakMap<object, ProvenanceLabel>()

const MALFORMED_RESULT = 'the code runtime resolved with something that is not { logs, value?, error? }'

const PARAMETERS = Object.freeze({
  type: 'object',
  properties: Object.freeze({
    code: Object.freeze({
      type: 'string',
      description:
        'Required. A TypeScript program, run as the body of an async function. Call tools as `await tools.<name>({ ...arguments })`; `return` a JSON value to report it; `console.log` lines are captured.',
    }),
    description: Object.freeze({
      type: 'string',
      description:
        'Required, alongside `code`. One short line saying what the program does; shown to the user.',
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

/** X1.4, X1.11: log lines, then the result (strings as is, other JSON pretty-printed), or a placeholder. */
function render(_args: unknown, value: RunCodeValue): ContentBlock[] {
  const parts: string[] = [...value.logs]
  if ('result' in value) {
    const result = value.result as JsonValue
    parts.push(typeof result === 'string' ? result : renderJson(result))
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
      elicitor: inputs?.elicitor,
      host,
    })
  }
  return Object.freeze({
    name: RUN_CODE,
    description:
      'Run a TypeScript program that calls the tools listed in the instructions through the `tools` object and returns a JSON result. Always pass both arguments: `code` (the program) and `description` (one short line saying what it does).',
    parameters: PARAMETERS,
    output: Object.freeze({ schema: OUTPUT_SCHEMA, render }),
    execute,
    presentCall,
    // The run's result, success or failure, carries the label of the nested results it read (H4.2).
    provenance: (args: unknown) =>
      args !== null && typeof args === 'object' ? RUN_LABELS.get(args) : undefined,
  }) as AnyToolDefinition
}
