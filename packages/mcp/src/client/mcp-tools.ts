/**
 * `mcpTools`: an MCP server's tools imported as tooltx raw definitions (Y2). Register them in a
 * runtime or scope like any tool; every call then goes through the tooltx pipeline first.
 */
import { CLIENT_CAPABILITIES_META_KEY, type Client, type Tool } from '@modelcontextprotocol/client'
import { type AnyToolDefinition, type ToolEffect, ToolError } from '@tooltx/core'
import { errorMessage } from '@tooltx/core/internal'
import { offersTaskExtension, TASKS_EXTENSION } from '../tasks-extension.js'
import { type Backoff, DEFAULT_BACKOFF, type ReconnectOptions } from './backoff.js'
import {
  type ClientCapabilityOptions,
  capabilityOptionProblem,
  clientCapabilities,
  installCapabilityHandlers,
} from './client-capabilities.js'
import { createClient, type McpConnection, openClient } from './client-connection.js'
import { ClientLink } from './client-link.js'
import { importedTool } from './imported-tool.js'
import { inputAnswerer } from './input-answers.js'
import { UnsafePatternError } from './linear-pattern.js'
import type { ImportPlan } from './remote-call.js'
import { importedName, sanitize } from './tool-names.js'

/** Options of {@link mcpTools}; `onElicit`, `onLog` and `roots` add client capabilities (Y2.24–Y2.27). */
export interface McpToolsOptions extends ClientCapabilityOptions {
  /** The server's name in tool names (`mcp__<name>__<tool>`); sanitized to `[A-Za-z0-9_-]`. */
  name: string
  /**
   * Trust the server's annotations (Y2.7): its `readOnlyHint: true` tools become
   * concurrency-safe, and each tool's effect class comes from its annotations (F1.7):
   * `readOnlyHint: true` is `'read'`, else `idempotentHint: true` is `'idempotent'`, else
   * `'write'`. Trust its failure codes too (Y2.20): the tooltx code a failure names in
   * `_meta['tooltx/result']` (`DENIED`, say) becomes the failure's code. Default `false`: every
   * imported tool runs exclusively and is a `'write'`, every failure the server reports is
   * `MCP_REMOTE_ERROR` (Y2.19), and every result is labelled `{ integrity: 'untrusted' }` (H1.5).
   */
  trusted?: boolean
  /** The timeout of every imported tool, in ms (Y2.8); default 60 000. */
  timeoutMs?: number
  /** Per remote tool name, a timeout overriding `timeoutMs`. */
  toolTimeouts?: Record<string, number>
  /**
   * How a dropped connection is reconnected (Y2.14): `attempts` (5) tries, the first at once,
   * then waits from `initialDelayMs` (250) growing by `factor` (2) up to `maxDelayMs` (5 000).
   * `false` never reconnects: after a drop every call fails `MCP_CONNECTION_CLOSED`.
   */
  reconnect?: ReconnectOptions | false
  /**
   * Which calls are made as MCP tasks (Y6.13, Y6.27): `true` every tool of a server that offers
   * the 2026-07-28 Tasks extension, or that announces tasks for `tools/call` (2025-11-25) with
   * a listing that says `execution.taskSupport: 'optional'`; a list of remote tool names only
   * those; a 2025 tool that says `'required'` always is. Default: only `'required'` ones. A task
   * call records the task id as a resumable receipt before it waits, so an agent resumed after
   * a crash polls the same task instead of calling again (Y6.14–Y6.16); on the extension it
   * answers the task's input requests as it answers the same requests sent alone: `onElicit`,
   * `onSample`, `roots`; one it cannot answer is refused with a JSON-RPC error (Y6.29, Y6.30).
   */
  tasks?: boolean | readonly string[]
}

/** A remote tool that was not imported, and why (Y2.2, Y2.4). */
export interface SkippedTool {
  /** The remote tool name. */
  tool: string
  /** The tooltx name it would have had. */
  name: string
  reason: string
}

/** The imported tools of one connected server. */
export interface McpToolSet {
  /** The definitions, in the server's order; the latest listing (Y2.12). */
  readonly tools: readonly AnyToolDefinition[]
  /** Remote tools left out: name collisions and schemas that cannot be compiled. */
  readonly skipped: readonly SkippedTool[]
  /** The connected SDK client, for anything beyond tools. */
  readonly client: Client
  /**
   * Registers every tool in `target` (a runtime or a scope) and keeps it in step with the
   * server's listing (Y2.12); the disposer unregisters them and stops following.
   */
  register(target: { register(def: AnyToolDefinition): () => void }): () => void
  /** Closes the connection for good (a spawned server is stopped). Later calls fail `MCP_CONNECTION_CLOSED`. */
  close(): Promise<void>
}

function optionError(message: string): ToolError {
  return new ToolError('INVALID_DEFINITION', `mcpTools: ${message}`, { name: 'DefinitionError' })
}

function positive(value: unknown, what: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0)
    throw optionError(`${what} must be a positive number of milliseconds`)
  return value
}

/** The checked reconnection settings, or `undefined` for `reconnect: false`. */
function backoffOf(reconnect: ReconnectOptions | false | undefined): Backoff | undefined {
  if (reconnect === false) return undefined
  if (reconnect !== undefined && (reconnect === null || typeof reconnect !== 'object'))
    throw optionError('reconnect must be false or { attempts?, initialDelayMs?, factor?, maxDelayMs? }')
  const backoff = { ...DEFAULT_BACKOFF, ...reconnect }
  if (!Number.isInteger(backoff.attempts) || backoff.attempts < 1)
    throw optionError('reconnect.attempts must be a positive integer')
  positive(backoff.initialDelayMs, 'reconnect.initialDelayMs')
  positive(backoff.maxDelayMs, 'reconnect.maxDelayMs')
  if (typeof backoff.factor !== 'number' || !Number.isFinite(backoff.factor) || backoff.factor < 1)
    throw optionError('reconnect.factor must be a number of at least 1')
  return Object.freeze(backoff)
}

/** One listing of the server, imported. */
interface Listing {
  readonly tools: readonly AnyToolDefinition[]
  readonly skipped: readonly SkippedTool[]
}

/**
 * Imports `remote` in the server's order as `mcp__<server>__<tool>` (Y2.2): a name an earlier
 * tool took, a schema `load` cannot compile (Y2.4) or a pattern RE2 cannot run (Y2.16), puts
 * the tool in `skipped` instead.
 */
function importListing(
  remote: readonly Tool[],
  server: string,
  load: (tool: Tool, name: string) => AnyToolDefinition,
): Listing {
  const tools: AnyToolDefinition[] = []
  const skipped: SkippedTool[] = []
  const taken = new Map<string, string>()
  for (const tool of remote) {
    const name = importedName(server, tool.name)
    const earlier = taken.get(name)
    if (earlier !== undefined) {
      skipped.push({ tool: tool.name, name, reason: `its name collides with remote tool "${earlier}"` })
      continue
    }
    try {
      tools.push(load(tool, name))
      taken.set(name, tool.name)
    } catch (error) {
      const reason =
        error instanceof UnsafePatternError
          ? `its schema is refused: ${error.message}`
          : `its schema cannot be compiled: ${errorMessage(error)}`
      skipped.push({ tool: tool.name, name, reason })
    }
  }
  return { tools: Object.freeze(tools), skipped: Object.freeze(skipped) }
}

/** The imported tools registered in one target, replaced as a whole when the listing changes. */
class Registration {
  private offs: (() => void)[] = []
  constructor(private readonly target: { register(def: AnyToolDefinition): () => void }) {}

  /**
   * Unregisters what this target holds, then registers `tools`. A definition the target refuses
   * (its name is taken there) throws out of the first registration and is left out of a later one.
   */
  replace(tools: readonly AnyToolDefinition[], first = false): void {
    for (const off of this.offs.splice(0)) off()
    for (const def of tools) {
      try {
        this.offs.push(this.target.register(def))
      } catch (error) {
        if (first) {
          this.replace([])
          throw error
        }
      }
    }
  }
}

/**
 * Connects to the server, lists all its tools and imports each as `mcp__<server>__<tool>`
 * (Y2.1, Y2.2). A tooltx name already taken by an earlier remote tool, or a schema that cannot
 * be compiled, puts the tool in `skipped` instead. Rejects when the connection or the listing
 * fails, and throws `INVALID_DEFINITION` for a bad option.
 */
export async function mcpTools(connection: McpConnection, options: McpToolsOptions): Promise<McpToolSet> {
  if (options === null || typeof options !== 'object') throw optionError('options must be an object')
  if (typeof options.name !== 'string' || sanitize(options.name) === '')
    throw optionError('name must be a non-empty string')
  const timeoutMs = positive(options.timeoutMs ?? 60_000, 'timeoutMs')
  const toolTimeouts = options.toolTimeouts ?? {}
  for (const [tool, ms] of Object.entries(toolTimeouts)) positive(ms, `toolTimeouts["${tool}"]`)
  const backoff = backoffOf(options.reconnect)
  const { tasks = false } = options
  if (typeof tasks !== 'boolean' && !(Array.isArray(tasks) && tasks.every((t) => typeof t === 'string')))
    throw optionError('tasks must be a boolean or an array of remote tool names')
  const capabilityProblem = capabilityOptionProblem(options)
  if (capabilityProblem !== undefined) throw optionError(capabilityProblem)
  const maxBytes = (connection as { maxMessageBytes?: unknown } | null)?.maxMessageBytes
  if (maxBytes !== undefined && (!Number.isSafeInteger(maxBytes) || (maxBytes as number) <= 0))
    throw optionError('maxMessageBytes must be a positive integer number of bytes')
  let listing: Listing = { tools: Object.freeze([]), skipped: Object.freeze([]) }
  // What a task call of the extension declares on each request, and how it answers (Y6.27).
  const extensionCapabilities = { ...clientCapabilities(options), extensions: { [TASKS_EXTENSION]: {} } }
  const taskMeta = { [CLIENT_CAPABILITIES_META_KEY]: extensionCapabilities }
  const running: string[] = []
  const side = { server: options.name, running }
  const answerInput = inputAnswerer(side, options)
  const targets = new Set<Registration>()
  const plan = (link: ClientLink, tool: Tool, name: string): ImportPlan => ({
    link,
    server: options.name,
    tool,
    name,
    timeoutMs: toolTimeouts[tool.name] ?? timeoutMs,
    trusted: options.trusted === true,
    concurrencySafe: options.trusted === true && tool.annotations?.readOnlyHint === true,
    ...(options.trusted === true ? { effect: annotatedEffect(tool) } : {}),
    asTask: callsAsTask(client, tool, tasks),
    running,
    taskMeta,
    answerInput,
  })
  let link: ClientLink | undefined
  const reimport = (remote: readonly Tool[]) => {
    // Every target trades the old definitions for the new listing (Y2.12).
    // A listing announced before the connection is settled is read again once it is.
    if (link === undefined) return
    const through = link
    listing = importListing(remote, options.name, (tool, name) => importedTool(plan(through, tool, name)))
    for (const registration of targets) registration.replace(listing.tools)
  }
  // A server whose tasks are the 2025 utility only is spoken to in a 2025 session (Y6.31).
  const { client, connect } = await openClient((legacy) => {
    const made = createClient(
      connection,
      `tooltx-${sanitize(options.name)}`,
      reimport,
      backoff ?? DEFAULT_BACKOFF,
      clientCapabilities(options),
      legacy,
    )
    installCapabilityHandlers(made.client, side, options)
    return made
  }, tasks !== false)
  // After a reconnection the server may list other tools: it is asked again (Y2.14).
  const opened = new ClientLink(client, connect, backoff, async () =>
    reimport((await client.listTools()).tools),
  )
  link = opened
  try {
    reimport((await client.listTools()).tools)
    const set: McpToolSet = {
      get tools() {
        return listing.tools
      },
      get skipped() {
        return listing.skipped
      },
      client,
      register(target) {
        const registration = new Registration(target)
        registration.replace(listing.tools, true)
        targets.add(registration)
        return () => {
          targets.delete(registration)
          registration.replace([])
        }
      },
      close: () => opened.close(),
    }
    return Object.freeze(set)
  } catch (error) {
    await opened.close()
    throw error
  }
}

/** True iff calls of `tool` are made as tasks (Y6.13, Y6.27): see `McpToolsOptions.tasks`. */
function callsAsTask(client: Client, tool: Tool, tasks: boolean | readonly string[]): boolean {
  const chosen = tasks === true || (Array.isArray(tasks) && tasks.includes(tool.name))
  if (offersTaskExtension(client)) return chosen
  const capability = client.getServerCapabilities()?.tasks?.requests?.tools?.call
  const support = tool.execution?.taskSupport
  if (capability === undefined || support === undefined || support === 'forbidden') return false
  return support === 'required' || chosen
}

/** The effect class a trusted server's annotations give a tool (F1.7). */
function annotatedEffect(tool: Tool): ToolEffect {
  if (tool.annotations?.readOnlyHint === true) return 'read'
  return tool.annotations?.idempotentHint === true ? 'idempotent' : 'write'
}
