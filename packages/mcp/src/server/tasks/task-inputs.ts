/**
 * Whom a task's run asks, and how (Y6.9, Y6.23, Y6.24, Y6.29). On the 2026-07-28 revision an
 * approval (Y1.7), a body's own form (Y1.31) or its completion (Y1.33) becomes an input request
 * of the task, kept in the store, so the client sees it in `tasks/get` whichever instance it
 * asks, and answers it with `tasks/update` through any instance; the run waits for the answer
 * in the store.
 */
import { randomUUID } from 'node:crypto'
import type { CreateMessageResult, ElicitRequestFormParams, ElicitResult } from '@modelcontextprotocol/server'
import type { Approver, Elicitor, ElicitReply } from '@tooltx/core'
import { errorMessage, sleep } from '@tooltx/core/internal'
import { isTerminal, type TaskChange, type TaskStore } from '../../task-store.js'
import { type SampleRequest, type Sampler, samplers } from '../body-sample.js'
import { approvalForm, approvalOutcome, failClosed } from '../elicit-approver.js'

/** What the request that created a 2026-07-28 task declared it can answer (Y6.23, Y6.29). */
export interface TaskInputKinds {
  readonly elicitation: boolean
  readonly sampling: boolean
}

/**
 * Whom a task's run asks: the client of the 2025 session that created it (`client`, Y6.9), the
 * task's own input requests of the kinds its request declared (`task`, the 2026-07-28
 * extension, Y6.23, Y6.29), or `'nobody'` (a resumed run, or a request that declared neither):
 * every ask is then `DENIED`, every form `cancel`, every completion refused.
 */
export type TaskAsker = { readonly client: Approver } | { readonly task: TaskInputKinds } | 'nobody'

/** The task whose run asks, and how it waits. */
export interface TaskInputHost {
  readonly store: TaskStore
  /** The instance running the task (only it moves the task). */
  readonly owner: string
  readonly taskId: string
  /** The served call id the run has (its body's completions are routed by it). */
  readonly callId: string
  /** How often the store is read for the answer, in ms. */
  readonly pollMs: number
  /** How long an answer is waited for (the server's `approvalTimeoutMs`). */
  readonly timeoutMs: number
}

type InputRequest =
  | { readonly method: 'elicitation/create'; readonly params: ElicitRequestFormParams }
  | { readonly method: 'sampling/createMessage'; readonly params: SampleRequest }

/** A flat form value as MCP form-mode elicitation allows one. */
const isFormValue = (value: unknown): boolean =>
  ['string', 'number', 'boolean'].includes(typeof value) ||
  (Array.isArray(value) && value.every((item) => typeof item === 'string'))

/** The status message of a task waiting for each kind of input. */
const STATUS_MESSAGES = {
  approval: 'waiting for approval',
  form: 'waiting for input',
  sample: 'waiting for a completion',
} as const

/** The body's reply an answer means: `accept` with flat values, else `decline` or `cancel`. */
function replyOf(answer: ElicitResult | undefined): ElicitReply {
  if (answer?.action === 'decline') return { action: 'decline' }
  const content = answer?.content
  if (
    answer?.action !== 'accept' ||
    content === null ||
    typeof content !== 'object' ||
    Array.isArray(content) ||
    !Object.values(content).every(isFormValue)
  )
    return { action: 'cancel' }
  return { action: 'accept', content: content as Extract<ElicitReply, { action: 'accept' }>['content'] }
}

/**
 * The completion an answer to a sampling input request is (Y6.29): a `CreateMessageResult`
 * (`role`, `content`, `model`); a refusal (`{ error: { message } }`, Y6.30), no answer, or any
 * other value rejects, saying why.
 */
function completionOf(answer: unknown, taskId: string): CreateMessageResult {
  if (answer === undefined)
    throw new Error(`sample: the client of task ${taskId} did not answer the completion request`)
  const { error, role, content, model } = answer as Record<string, unknown>
  if (error !== null && typeof error === 'object')
    throw new Error(`sample: the client refused: ${String((error as { message?: unknown }).message)}`)
  if (
    typeof role !== 'string' ||
    typeof model !== 'string' ||
    content === null ||
    typeof content !== 'object'
  )
    throw new Error(
      `sample: the client's answer is not a completion: ${JSON.stringify(answer)?.slice(0, 200)}`,
    )
  return answer as CreateMessageResult
}

/** The input requests of one run of one task. */
export class TaskInputs {
  /** The requests of this run not yet answered, by key. */
  readonly #outstanding = new Map<string, InputRequest>()

  constructor(private readonly host: TaskInputHost) {}

  /** The run's approver: each ask is an approval form, its answer bound to the arguments digest. */
  readonly approver: Approver = async (request) => {
    const params = approvalForm(request)
    const answer = await this.#ask('approval', { method: 'elicitation/create', params }, request.signal)
    return answer === undefined ? 'cancelled' : approvalOutcome(request, answer as ElicitResult)
  }

  /** The run's elicitation handler: a body's `run.elicit(form)` (P8.13, Y1.31). */
  readonly forms: Elicitor = async ({ message, requestedSchema, signal }) => {
    // Core checked the form against MCP's field kinds (P8.13); its types only group them differently.
    const schema = requestedSchema as ElicitRequestFormParams['requestedSchema']
    const params: ElicitRequestFormParams = { mode: 'form', message, requestedSchema: schema }
    return replyOf(
      (await this.#ask('form', { method: 'elicitation/create', params }, signal)) as ElicitResult,
    )
  }

  /** The run's sampler (`sample(run, request)`, Y1.33, Y6.29). */
  readonly samples: Sampler = async (params, signal) =>
    completionOf(
      await this.#ask('sample', { method: 'sampling/createMessage', params }, signal),
      this.host.taskId,
    )

  /**
   * Publishes one request under a fresh key (unique for the task's life) and waits for its
   * answer; `undefined` when the task ended, the run was aborted, the store failed, or nobody
   * answered within `timeoutMs`.
   */
  async #ask(
    kind: keyof typeof STATUS_MESSAGES,
    request: InputRequest,
    signal: AbortSignal,
  ): Promise<object | undefined> {
    const { store, taskId, pollMs, timeoutMs } = this.host
    const key = `tooltx/${kind}-${randomUUID()}`
    const message = STATUS_MESSAGES[kind]
    this.#outstanding.set(key, request)
    const deadline = Date.now() + timeoutMs
    try {
      if ((await this.#publish(message)) === undefined) return undefined
      for (;;) {
        const record = await store.get(taskId)
        if (record === undefined || isTerminal(record.status)) return undefined
        const given: unknown = (JSON.parse(record.inputResponses ?? '{}') as Record<string, unknown>)[key]
        // An answer that is not an object answers nothing: the ask is cancelled.
        if (given !== undefined) return given !== null && typeof given === 'object' ? given : undefined
        if (signal.aborted || Date.now() >= deadline) return undefined
        await sleep(Math.min(pollMs, deadline - Date.now()), signal)
      }
    } catch (error) {
      process.emitWarning(`task ${taskId}: its input request failed: ${errorMessage(error)}`)
      return undefined
    } finally {
      this.#outstanding.delete(key)
      await this.#publish(message).catch(() => undefined)
    }
  }

  /** Moves the task to `input_required` with what is outstanding, or back to `working`. */
  #publish(message: string) {
    const { store, taskId, owner } = this.host
    const change: TaskChange =
      this.#outstanding.size === 0
        ? { status: 'working' }
        : {
            status: 'input_required',
            statusMessage: message,
            inputRequests: JSON.stringify(Object.fromEntries(this.#outstanding)),
          }
    return store.move(taskId, change, new Date().toISOString(), owner)
  }
}

/** Whom one run of a task asks: its approver, the handler of its body's forms if any, and what closes its routes. */
export interface TaskAsking {
  readonly approver: Approver
  readonly elicit?: Elicitor
  close(): void
}

/**
 * The approver of one run as `asker` says, and what closes its routes when the run ends: a
 * 2025 client's answer is awaited with the task `input_required` ('waiting for approval');
 * the task's own asking takes the approvals and the body's forms (Y1.31) when its request
 * declared elicitation, and the body's completions (Y1.33) when it declared sampling (Y6.29).
 */
export function taskAsking(asker: TaskAsker, host: TaskInputHost): TaskAsking {
  if (asker === 'nobody') return { approver: failClosed, close: () => undefined }
  if ('task' in asker) {
    const inputs = new TaskInputs(host)
    const { elicitation, sampling } = asker.task
    const close = sampling ? samplers.open(host.callId, inputs.samples) : () => undefined
    return elicitation
      ? { approver: inputs.approver, elicit: inputs.forms, close }
      : { approver: failClosed, close }
  }
  const move = (change: TaskChange) =>
    host.store.move(host.taskId, change, new Date().toISOString(), host.owner)
  const approver: Approver = async (request) => {
    await move({ status: 'input_required', statusMessage: 'waiting for approval' })
    try {
      return await asker.client(request)
    } finally {
      await move({ status: 'working' })
    }
  }
  return { approver, close: () => undefined }
}
