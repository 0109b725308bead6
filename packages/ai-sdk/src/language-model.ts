/**
 * `aiSdkModel`: any AI SDK language model behind tooltx's `ModelAdapter` (Z2.1–Z2.5), so it drives
 * the tooltx agent loop with its scheduler, durability and approvals.
 */
import {
  APICallError,
  type LanguageModelV4,
  type LanguageModelV4StreamPart,
  type SharedV4ProviderMetadata,
} from '@ai-sdk/provider'
import {
  connectionFailure,
  cutReply,
  httpFailure,
  ModelAbortError,
  type ModelAdapter,
  ModelError,
  type ModelRequest,
  type ModelStreamEvent,
  type ReplyBlock,
  replyStop,
  rootCauseMessage,
  type StopReason,
  unfinishedStream,
} from '@tooltx/agent'
import type { JsonValue } from '@tooltx/core'
import type { LanguageModel } from 'ai'
import { resolveLanguageModel } from 'ai/internal'
import { callOptions } from './prompt.js'

/** Options of `aiSdkModel`. */
export interface AiSdkModelOptions {
  /** The adapter's name in logs and errors; default `ai-sdk:<provider>:<modelId>`. */
  name?: string
  /** Call settings passed to every `doStream` as they are, such as `maxOutputTokens` or `temperature`. */
  settings?: Omit<Parameters<LanguageModelV4['doStream']>[0], 'prompt' | 'tools' | 'abortSignal'>
}

/** Finish reasons that mean the provider stopped the reply short, with what to change (L12.2). */
const CUT_HINTS: Readonly<Record<string, string>> = {
  length: 'Raise maxOutputTokens in settings, or ask for smaller tool inputs.',
  'content-filter': "The provider's content filter stopped the reply; rephrase the request.",
  interrupted: 'The provider interrupted the reply; retry.',
}
/** Unified finish reasons in tooltx's words (T2.1). */
const STOPS: Readonly<Record<string, StopReason>> = {
  stop: 'stop',
  'tool-calls': 'tool_calls',
  length: 'max_tokens',
  'content-filter': 'content_filter',
}
/** The wire name of this bridge's reasoning blocks (T1.4). */
export const AI_SDK_WIRE = 'ai-sdk'

/**
 * A tooltx `ModelAdapter` over an AI SDK language model: a `LanguageModelV4` object, an older
 * specification version, or a model id string for the AI SDK's global provider, resolved the way
 * `generateText` resolves it. Each request is one `doStream` call (no retries: the loop's turn ends
 * with the error, as with the other adapters). Text deltas and tool-input deltas stream as tooltx
 * events; the reply's tool calls carry the provider's `input` string unchanged as their raw
 * arguments (Z2.3). Reasoning parts become reasoning blocks with their provider metadata, sent
 * back as reasoning parts with it as provider options (T1.4). The reply is complete only at the
 * `finish` part (Z2.4); provider-executed tool calls, sources and files are not part of
 * tooltx's message model and are skipped.
 */
export function aiSdkModel(model: LanguageModel, options: AiSdkModelOptions = {}): ModelAdapter {
  const resolved = resolveLanguageModel(model)
  const name = options.name ?? `ai-sdk:${resolved.provider}:${resolved.modelId}`
  return {
    name,
    async *stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelStreamEvent> {
      if (signal.aborted) throw new ModelAbortError(name, signal.reason)
      const reply = new Reply(name)
      let reader: ReadableStreamDefaultReader<LanguageModelV4StreamPart> | undefined
      try {
        const { stream } = await resolved.doStream({ ...options.settings, ...callOptions(request, signal) })
        reader = stream.getReader()
        for (;;) {
          const { done, value } = await reader.read()
          if (done) break
          yield* reply.add(value)
          if (signal.aborted) throw new ModelAbortError(name, signal.reason)
        }
      } catch (error) {
        if (signal.aborted) throw new ModelAbortError(name, signal.reason)
        throw failure(name, error)
      } finally {
        // Leaving early (break, abort, failure) cancels the provider's request.
        reader?.cancel().catch(() => {})
      }
      yield reply.message()
    },
  }
}

/** A tool call seen so far: its tooltx index, and its final raw input once the `tool-call` part came. */
interface Call {
  index: number
  name: string
  input: string | undefined
}

/** A text or reasoning part seen so far, in order of first appearance. */
interface Part {
  kind: 'text' | 'reasoning'
  text: string
  metadata: SharedV4ProviderMetadata | undefined
}

/** Collects one reply's parts into tooltx events and the final message. */
class Reply {
  readonly #adapter: string
  readonly #parts = new Map<string, Part>()
  readonly #calls = new Map<string, Call>()
  #finish: { reason: string; raw: string | undefined; inputTokens: number; outputTokens: number } | undefined

  constructor(adapter: string) {
    this.#adapter = adapter
  }

  /** The tooltx events of one stream part; throws a `stream` `ModelError` for an `error` part. */
  *add(part: LanguageModelV4StreamPart): Iterable<ModelStreamEvent> {
    switch (part.type) {
      case 'text-delta':
        this.#part('text', part.id).text += part.delta
        if (part.delta !== '') yield { type: 'text-delta', text: part.delta }
        return
      case 'reasoning-start':
      case 'reasoning-end':
        this.#note(this.#part('reasoning', part.id), part.providerMetadata)
        return
      case 'reasoning-delta': {
        const reasoning = this.#part('reasoning', part.id)
        reasoning.text += part.delta
        this.#note(reasoning, part.providerMetadata)
        if (part.delta !== '') yield { type: 'reasoning-delta', text: part.delta }
        return
      }
      case 'tool-input-start':
        if (part.providerExecuted === true) return
        yield this.#open(part.id, part.toolName)
        return
      case 'tool-input-delta': {
        const call = this.#calls.get(part.id)
        if (call !== undefined && part.delta !== '') {
          yield { type: 'tool-call-delta', index: call.index, argumentsDelta: part.delta }
        }
        return
      }
      case 'tool-call': {
        if (part.providerExecuted === true) return
        let call = this.#calls.get(part.toolCallId)
        if (call === undefined) {
          // A provider that streams no input deltas sends the whole call at once.
          const opened = this.#open(part.toolCallId, part.toolName)
          yield { ...opened, argumentsDelta: part.input }
          call = this.#calls.get(part.toolCallId)!
        }
        call.input = part.input
        return
      }
      case 'finish':
        this.#finish = {
          reason: part.finishReason.unified,
          raw: part.finishReason.raw,
          inputTokens: part.usage.inputTokens.total ?? 0,
          outputTokens: part.usage.outputTokens.total ?? 0,
        }
        return
      case 'error':
        throw new ModelError(
          this.#adapter,
          'stream',
          `the provider reported an error mid-stream: ${rootCauseMessage(part.error)}.`,
          {
            cause: part.error,
          },
        )
      default:
        return
    }
  }

  /** The final `message` event; throws when the reply is not known to be complete (Z2.4). */
  message(): ModelStreamEvent {
    const finish = this.#finish
    if (finish === undefined) throw unfinishedStream(this.#adapter, 'a finish part')
    if (finish.reason === 'error') {
      throw new ModelError(
        this.#adapter,
        'stream',
        'the provider finished the reply with an error; none of its tool calls ran.',
      )
    }
    const content: ReplyBlock[] = []
    for (const part of this.#parts.values()) {
      if (part.kind === 'text') {
        if (part.text !== '') content.push({ type: 'text', text: part.text })
        continue
      }
      content.push({
        type: 'reasoning',
        wire: AI_SDK_WIRE,
        text: part.text,
        ...(part.text === '' ? { redacted: true } : {}),
        // The metadata is JSON but may hold undefined values, which a lossless log cannot keep.
        ...(part.metadata === undefined
          ? {}
          : { data: { providerMetadata: JSON.parse(JSON.stringify(part.metadata)) as JsonValue } }),
      })
    }
    const calls = [...this.#calls.entries()]
    const usage = { inputTokens: finish.inputTokens, outputTokens: finish.outputTokens }
    const stop = {
      ...replyStop(finish.reason, STOPS),
      ...(finish.raw === undefined ? {} : { raw: finish.raw }),
    }
    const hint = CUT_HINTS[finish.reason]
    if (calls.length > 0 && hint !== undefined) {
      const cut = [...content, ...calls.map(([id, call]) => callBlock(id, call))]
      throw cutReply(this.#adapter, `finish reason "${finish.reason}"`, hint, { content: cut, stop, usage })
    }
    for (const [id, call] of calls) {
      if (call.input === undefined) {
        throw new ModelError(
          this.#adapter,
          'stream',
          `tool call ${call.index} ("${call.name}") streamed input but never completed; none of the reply's tool calls ran.`,
        )
      }
      content.push(callBlock(id, call))
    }
    return { type: 'message', content, usage, stop }
  }

  #part(kind: Part['kind'], id: string): Part {
    const key = `${kind}:${id}`
    let part = this.#parts.get(key)
    if (part === undefined) {
      part = { kind, text: '', metadata: undefined }
      this.#parts.set(key, part)
    }
    return part
  }

  /** Merges a part's provider metadata, provider by provider (a signature may come after the text). */
  #note(part: Part, metadata: Part['metadata']): void {
    if (metadata === undefined) return
    const merged = { ...part.metadata }
    for (const [provider, values] of Object.entries(metadata))
      merged[provider] = { ...merged[provider], ...values }
    part.metadata = merged
  }

  #open(id: string, name: string): ModelStreamEvent & { type: 'tool-call-delta' } {
    const index = this.#calls.size
    this.#calls.set(id, { index, name, input: undefined })
    return { type: 'tool-call-delta', index, id, name, argumentsDelta: '' }
  }
}

/** A tool call as a block, with its input as the raw arguments (`''` when it never completed). */
function callBlock(id: string, call: Call): ReplyBlock {
  return { type: 'tool-call', id, name: call.name, arguments: call.input ?? '' }
}

/** A failed `doStream` as a `ModelError`: `http` for a status, `connection` for an unreachable endpoint. */
function failure(adapter: string, error: unknown): ModelError {
  if (error instanceof ModelError) return error
  if (APICallError.isInstance(error)) {
    const endpoint = error.url
    if (error.statusCode !== undefined) {
      const status = error.statusCode
      return httpFailure({ adapter, endpoint, status, detail: rootCauseMessage(error), cause: error })
    }
    return connectionFailure({
      adapter,
      endpoint,
      detail: rootCauseMessage(error.cause ?? error),
      cause: error,
    })
  }
  return new ModelError(adapter, 'connection', `the model call failed: ${rootCauseMessage(error)}.`, {
    cause: error,
  })
}
