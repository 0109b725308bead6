/**
 * What an `mcpTools` client offers the server besides calling its tools (Y2.24–Y2.28): answers
 * to the server's elicitation and sampling requests, its log messages, and the roots of the
 * host's workspace.
 * A capability is announced only when the host gives what it takes to honour it.
 */
import { pathToFileURL } from 'node:url'
import type {
  Client,
  ClientCapabilities,
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitRequestFormParams,
  ElicitRequestParams,
  ElicitResult,
  ListRootsResult,
  LoggingLevel,
} from '@modelcontextprotocol/client'
import type { JsonValue } from '@tooltx/core'
import { errorMessage } from '@tooltx/core/internal'

/** A form a server asks the person to fill (MCP form-mode elicitation), with the server's name. */
export interface ElicitQuestion {
  /** The `name` the server was imported under. */
  readonly server: string
  readonly message: string
  /** The flat object schema of the form (primitive properties only, as MCP restricts it). */
  readonly requestedSchema: ElicitRequestFormParams['requestedSchema']
  /** The ids of the server's imported calls running when it asked, oldest first (Y2.29). */
  readonly calls: readonly string[]
  /** Aborted when the server cancels the request or the connection closes. */
  readonly signal: AbortSignal
}

/**
 * The person's answer: `accept` with the form's values (fields left out take the schema's
 * defaults), `decline`, or `cancel` (dismissed without a choice).
 */
export type ElicitAnswer =
  | { action: 'accept'; content?: Record<string, string | number | boolean | string[]> }
  | { action: 'decline' | 'cancel' }

/** Answers a server's elicitation request (Y2.24). */
export type ElicitHandler = (question: ElicitQuestion) => Promise<ElicitAnswer> | ElicitAnswer

/** A completion a server asks of the host's model (MCP sampling), with the server's name. */
export interface SampleQuestion {
  readonly server: string
  /** The conversation, as MCP sampling messages (`{ role, content }`). */
  readonly messages: CreateMessageRequestParams['messages']
  readonly systemPrompt?: string
  readonly maxTokens: number
  /** The ids of the server's imported calls running when it asked, oldest first (Y2.29). */
  readonly calls: readonly string[]
  /** Aborted when the server cancels the request or the connection closes. */
  readonly signal: AbortSignal
}

/** The completion: the model's text and name. */
export interface SampleAnswer {
  model: string
  text: string
  stopReason?: string
}

/**
 * Answers a server's `sampling/createMessage` (Y2.28): the host's policy decides (ask the
 * person, allow, refuse) and its model answers; throwing refuses with that message.
 */
export type SampleHandler = (question: SampleQuestion) => Promise<SampleAnswer> | SampleAnswer

/** One `notifications/message` of a server (Y2.25). */
export interface ServerLogEntry {
  readonly server: string
  readonly level: LoggingLevel
  readonly logger?: string
  readonly data: JsonValue
}

/** The client-side options of `mcpTools` that add capabilities. */
export interface ClientCapabilityOptions {
  /** Answers the server's elicitation requests; without it the capability is not announced. */
  onElicit?: ElicitHandler
  /** Answers the server's sampling requests; without it the capability is not announced. */
  onSample?: SampleHandler
  /** Receives the server's log messages. */
  onLog?: (entry: ServerLogEntry) => void
  /**
   * Directories the host works in, announced as the client's roots (`file://` URIs), e.g. the
   * CLI's workspace; without it (or with none) the capability is not announced.
   */
  roots?: readonly string[]
}

/** What is wrong with the options of {@link ClientCapabilityOptions}, or `undefined`. */
export function capabilityOptionProblem(options: ClientCapabilityOptions): string | undefined {
  for (const key of ['onElicit', 'onSample', 'onLog'] as const)
    if (options[key] !== undefined && typeof options[key] !== 'function') return `${key} must be a function`
  const { roots } = options
  if (
    roots !== undefined &&
    (!Array.isArray(roots) || !roots.every((root) => typeof root === 'string' && root !== ''))
  )
    return 'roots must be an array of directory paths'
  return undefined
}

/** A failure of the host's handler, as a process warning: it must not break the connection. */
function warn(server: string, what: string, error: unknown): void {
  process.emitWarning(`MCP server "${server}": the ${what} handler failed: ${errorMessage(error)}`)
}

/** The capabilities the client announces for `options` (Y2.24, Y2.26). */
export function clientCapabilities(options: ClientCapabilityOptions): ClientCapabilities {
  return {
    ...(options.onElicit === undefined ? {} : { elicitation: { form: { applyDefaults: true } } }),
    ...(options.onSample === undefined ? {} : { sampling: {} }),
    ...(options.roots === undefined || options.roots.length === 0 ? {} : { roots: {} }),
  }
}

/** The server a client talks to: the name it was imported under and its imported calls in flight. */
export interface ServerSide {
  readonly server: string
  /** Shared with the server's imported tools, which list each call while it runs (Y2.29). */
  readonly running: readonly string[]
}

/** The answer a form takes when the person left fields out: each such field's schema default. */
function withDefaults(
  schema: ElicitRequestFormParams['requestedSchema'],
  content: Record<string, string | number | boolean | string[]>,
): Record<string, string | number | boolean | string[]> {
  const filled = { ...content }
  for (const [field, property] of Object.entries(schema.properties ?? {})) {
    const fallback = (property as { default?: unknown }).default
    if (!Object.hasOwn(filled, field) && fallback !== undefined)
      filled[field] = fallback as string | number | boolean | string[]
  }
  return filled
}

/**
 * Answers one elicitation of the server `side` names through `onElicit` (Y2.24): a
 * URL-mode one is declined; an `accept` takes the schema's defaults for the fields it leaves
 * out; a throwing handler answers `cancel` (a process warning).
 */
export async function answerElicitation(
  side: ServerSide,
  onElicit: ElicitHandler,
  params: ElicitRequestParams,
  signal: AbortSignal,
): Promise<ElicitResult> {
  const { server } = side
  if (params.mode === 'url') return { action: 'decline' }
  try {
    const { message, requestedSchema } = params
    const answer = await onElicit({ server, message, requestedSchema, calls: [...side.running], signal })
    return answer.action === 'accept'
      ? { action: 'accept', content: withDefaults(requestedSchema, answer.content ?? {}) }
      : answer
  } catch (error) {
    warn(server, 'onElicit', error)
    return { action: 'cancel' }
  }
}

/**
 * Answers one `sampling/createMessage` of the server `side` names through `onSample` (Y2.28):
 * the completion as MCP's `CreateMessageResult`; a throwing handler's error is the refusal.
 */
export async function answerSampling(
  side: ServerSide,
  onSample: SampleHandler,
  params: CreateMessageRequestParams,
  signal: AbortSignal,
): Promise<CreateMessageResult> {
  const { messages, systemPrompt, maxTokens } = params
  const answer = await onSample({
    server: side.server,
    messages,
    ...(systemPrompt === undefined ? {} : { systemPrompt }),
    maxTokens,
    calls: [...side.running],
    signal,
  })
  return {
    model: answer.model,
    role: 'assistant' as const,
    content: { type: 'text' as const, text: answer.text },
    ...(answer.stopReason === undefined ? {} : { stopReason: answer.stopReason }),
  }
}

/** The `roots/list` answer for the host's directories (Y2.26). */
export function rootList(roots: readonly string[]): ListRootsResult {
  return {
    roots: roots.map((dir) => ({
      uri: pathToFileURL(dir).href,
      name: dir.split(/[\\/]/).filter(Boolean).at(-1) ?? dir,
    })),
  }
}

/**
 * Installs on `client` the handlers of the capabilities of `options`, for the server `side`
 * names. A throwing `onElicit` answers `cancel`; a throwing handler is a process warning.
 */
export function installCapabilityHandlers(
  client: Client,
  side: ServerSide,
  options: ClientCapabilityOptions,
): void {
  const { server } = side
  const { onElicit, onSample, onLog, roots } = options
  if (onElicit !== undefined)
    client.setRequestHandler('elicitation/create', (request, ctx) =>
      answerElicitation(side, onElicit, request.params, ctx.mcpReq.signal),
    )
  if (onSample !== undefined)
    client.setRequestHandler('sampling/createMessage', (request, ctx) =>
      answerSampling(side, onSample, request.params, ctx.mcpReq.signal),
    )
  if (onLog !== undefined)
    client.setNotificationHandler('notifications/message', (notification) => {
      const { level, logger, data } = notification.params
      try {
        onLog({ server, level, ...(logger === undefined ? {} : { logger }), data: data as JsonValue })
      } catch (error) {
        warn(server, 'onLog', error)
      }
    })
  if (roots !== undefined && roots.length > 0) client.setRequestHandler('roots/list', () => rootList(roots))
}
