import type { AssistantBlock, ModelMessage } from '@tooltx/core'
import { definitionError, sleep } from '@tooltx/core/internal'
import type { ModelAdapter, ModelRequest, ModelStreamEvent, ModelUsage } from './model.js'
import { ModelAbortError, ModelError } from './model-error.js'

/** A tool call a scripted reply makes. */
export interface ScriptedToolCall {
  /** Default: `call_<request number>_<position>`, both counting from 1. */
  id?: string
  name: string
  /** The raw argument string, exactly as a model would stream it (it need not be valid JSON). */
  arguments: string
}

/** One scripted reply: the answer to one model request. */
export interface ScriptedStep {
  text?: string
  toolCalls?: readonly ScriptedToolCall[]
  /** Default: a rough estimate of one token per four characters of request and reply. */
  usage?: ModelUsage
  /** Pause before each streamed chunk, in milliseconds; overrides the model's `delayMs`. */
  delayMs?: number
  /** Called with the request before the reply streams; whatever it throws fails the stream. */
  expect?: (request: ModelRequest) => void
}

/** Options of `scripted`. */
export interface ScriptedOptions {
  /** The adapter's name; default `scripted`. */
  name?: string
  /** Pause before each streamed chunk, in milliseconds; default 0 (no timers at all). */
  delayMs?: number
  /** Characters per streamed piece of a tool call's arguments; default 8. */
  chunkSize?: number
}

/** A request as `scripted` records it: a deep copy, its messages as a plain array. */
export interface RecordedRequest extends Omit<ModelRequest, 'messages'> {
  messages: ModelMessage[]
}

/** A deterministic model that answers from a script and records what it was asked. */
export interface ScriptedModel extends ModelAdapter {
  /** Every request received, in order, as a deep copy taken when the request arrived. */
  readonly requests: readonly RecordedRequest[]
  /** How many steps have not been requested yet. */
  readonly remaining: number
  /** Throws the first error an `expect` threw, or a `ModelError` if steps are left unrequested. */
  assertDone(): void
}

/**
 * A model for tests and demos that answers request n with step n of `steps`. It streams
 * like a real model: text word by word, each tool call as a first delta with `id` and
 * `name` and then its arguments in `chunkSize` pieces, then the final `message` event.
 * A request after the last step fails with a `ModelError` of kind `script`; an aborted
 * signal stops the stream with `ModelAbortError`. A malformed script throws
 * `INVALID_DEFINITION` here, not at request time.
 */
export function scripted(steps: readonly ScriptedStep[], options: ScriptedOptions = {}): ScriptedModel {
  checkScript(steps, options)
  const name = options.name ?? 'scripted'
  const chunkSize = options.chunkSize ?? 8
  const requests: RecordedRequest[] = []
  const expectFailures: unknown[] = []

  async function* stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelStreamEvent> {
    const number = requests.length + 1
    requests.push(structuredClone({ ...request, messages: [...request.messages] }))
    if (signal.aborted) throw new ModelAbortError(name, signal.reason)
    const step = steps[number - 1]
    if (step === undefined) {
      throw new ModelError(
        name,
        'script',
        `no scripted step left for request ${number} (the script has ${steps.length}); ` +
          'add a step, or check why the loop asked the model again.',
      )
    }
    if (step.expect !== undefined) {
      try {
        step.expect(request)
      } catch (error) {
        expectFailures.push(error)
        throw error
      }
    }
    const delayMs = step.delayMs ?? options.delayMs ?? 0
    const content: AssistantBlock[] = []
    for (const event of replyEvents(step, number, chunkSize, content)) {
      if (delayMs > 0) await sleep(delayMs, signal)
      if (signal.aborted) throw new ModelAbortError(name, signal.reason)
      yield event
    }
    const usage = step.usage ?? estimateUsage(request, content)
    yield { type: 'message', content, usage }
  }

  return {
    name,
    stream,
    get requests() {
      return requests
    },
    get remaining() {
      return Math.max(0, steps.length - requests.length)
    },
    assertDone() {
      if (expectFailures.length > 0) throw expectFailures[0]
      if (requests.length < steps.length) {
        throw new ModelError(
          name,
          'script',
          `${steps.length - requests.length} of ${steps.length} scripted steps were never requested.`,
        )
      }
    },
  }
}

// The deltas of one step, filling `content` with the final blocks as a side effect.
function* replyEvents(
  step: ScriptedStep,
  number: number,
  chunkSize: number,
  content: AssistantBlock[],
): Generator<ModelStreamEvent> {
  if (step.text !== undefined && step.text !== '') {
    content.push({ type: 'text', text: step.text })
    for (const word of step.text.match(/\S*\s*/g) ?? []) {
      if (word !== '') yield { type: 'text-delta', text: word }
    }
  }
  for (const [index, call] of (step.toolCalls ?? []).entries()) {
    const id = call.id ?? `call_${number}_${index + 1}`
    content.push({ type: 'tool-call', id, name: call.name, arguments: call.arguments })
    yield { type: 'tool-call-delta', index, id, name: call.name, argumentsDelta: '' }
    for (let at = 0; at < call.arguments.length; at += chunkSize) {
      yield { type: 'tool-call-delta', index, argumentsDelta: call.arguments.slice(at, at + chunkSize) }
    }
  }
}

function estimateUsage(request: ModelRequest, content: AssistantBlock[]): ModelUsage {
  const tokens = (chars: number) => Math.ceil(chars / 4)
  const input =
    (request.system ?? '').length + request.instructions.length + JSON.stringify(request.messages).length
  const output = content.reduce(
    (sum, block) => sum + (block.type === 'tool-call' ? block.arguments : block.text).length,
    0,
  )
  return { inputTokens: tokens(input), outputTokens: tokens(output) }
}

function checkScript(steps: readonly ScriptedStep[], options: ScriptedOptions): void {
  if (!Array.isArray(steps))
    throw definitionError('scripted(steps): steps must be an array of scripted replies')
  const chunkSize = options.chunkSize ?? 8
  if (!Number.isInteger(chunkSize) || chunkSize < 1) {
    throw definitionError(`scripted: chunkSize must be a positive integer, got ${String(chunkSize)}`)
  }
  steps.forEach((step, i) => {
    const where = `scripted step ${i + 1}`
    if (typeof step !== 'object' || step === null) throw definitionError(`${where} must be an object`)
    if (step.text !== undefined && typeof step.text !== 'string')
      throw definitionError(`${where}: text must be a string`)
    if (step.toolCalls !== undefined && !Array.isArray(step.toolCalls)) {
      throw definitionError(`${where}: toolCalls must be an array`)
    }
    for (const [k, call] of (step.toolCalls ?? []).entries()) {
      if (typeof call?.name !== 'string' || typeof call.arguments !== 'string') {
        throw definitionError(
          `${where}, tool call ${k + 1}: needs a string name and the raw argument string ` +
            '(for example JSON.stringify({ path: "/tmp" }))',
        )
      }
    }
  })
}
