/**
 * `tooltx mcp serve` (Y3): the CLI's workspace tools, with the CLI's policy (the secrets guard,
 * approval before writes), served as an MCP server over stdio or Streamable HTTP.
 */
import path from 'node:path'
import { servedCallRecorder } from '@tooltx/agent'
import { createToolRuntime, type RuntimeScope, type ToolRuntime, type ToolView } from '@tooltx/core'
import {
  type HttpEndpoint,
  isLoopbackHost,
  mcpServer,
  memoryTaskStore,
  postgresTaskStore,
  type ServeTasksOptions,
  serveHttp,
  serveStdio,
} from '@tooltx/mcp'
import {
  assertSessionId,
  type DatabaseEventStore,
  openSession,
  postgresEventStore,
  sqliteEventStore,
} from '@tooltx/session'
import { counted } from '../display/counted.js'
import { DEFAULT_DB } from '../display/default-db.js'
import { type Output, UsageError } from '../display/output.js'
import { replayHint } from '../display/replay-hint.js'
import { dbLabel, isFolderStore, isPostgres, openStore } from '../session-store.js'
import { registerToolsModule } from '../tools-module.js'
import { createToolset } from '../toolset.js'
import { type Command, defineCommand } from './command.js'
import { type CommandUsage, noPositionals, usageError, workspaceFolder } from './flags.js'

const DB_HELP = `  --db PATH|URL    with --session, the session database: a SQLite file, a folder
                   of .jsonl logs (default ${DEFAULT_DB}) or a postgres:// connection string; a PostgreSQL
                   database or SQLite file also keeps the events of resumable HTTP streams,
                   so a client resumes a dropped stream after the server restarted`

/** `tooltx mcp serve`: its help, printed by `--help`; a usage error points to it. */
const USAGE: CommandUsage = {
  name: 'mcp serve',
  help: `Usage: tooltx mcp serve [options]

Serves the workspace tools (list, read, grep, run checks, write a note) to an MCP client, with
the CLI's policy: secrets (.env files) are never read, and every write asks the client's user
first (denied when the client cannot ask). Over stdio by default: stdout is the MCP channel.
Runs until Ctrl-C, SIGTERM or (over stdio) the end of stdin.

Options:
  --workspace DIR  the directory the tools may touch (default: the current directory)
  --tools FILE     serve the tools of your module instead: its default export (or its
                   \`tools\` export) is an array of tool definitions, or a function
                   (runtime) => … that registers them (and any policy) or returns the array
  --http [HOST]:PORT  serve Streamable HTTP instead, on HOST (default 127.0.0.1) and PORT;
                   a HOST other than loopback (e.g. 0.0.0.0) needs --token
  --token T        with --http, require Authorization: Bearer T (also TOOLTX_MCP_TOKEN,
                   which serving over stdio ignores); at least 16 characters,
                   e.g. --token "$(openssl rand -hex 16)"
  --session ID     record every served call in this session (created if new): one turn
                   per call, replayable with \`tooltx replay ID\`; calls then run one at a time
${DB_HELP}
  --tasks NAMES    serve these tools (comma-separated) as MCP tasks too: a client may start one
                   and poll it; tasks are kept in the --db PostgreSQL database with --session
                   (any server on it answers, a restart loses none), else in memory
  -h, --help       show this help`,
}

/** `[HOST]:PORT` → host and port; a usage error names what is wrong. */
function listenAddress(value: string): { host: string; port: number } {
  const match = /^(.*):(\d{1,5})$/.exec(value)
  const port = match === null ? Number.NaN : Number(match[2])
  if (match === null || port > 65_535)
    throw usageError(
      USAGE,
      `--http needs [HOST]:PORT, e.g. --http :8848 or --http 127.0.0.1:8848; got "${value}"`,
    )
  const host = match[1]!.replace(/^\[(.*)\]$/, '$1')
  return { host: host === '' ? '127.0.0.1' : host, port }
}

/**
 * Refuses what would serve the workspace to strangers (Y3.7): a non-loopback `host` without a
 * token, and a token too short to guess at (serveHttp's minimum), each as a usage error.
 */
function httpGate(given: string, host: string, token: string | undefined): void {
  if (token === undefined && !isLoopbackHost(host))
    throw usageError(
      USAGE,
      `--http ${given} listens beyond this machine (${host} is not a loopback address), so anyone who can reach it could use the tools: pass --token T (or set TOOLTX_MCP_TOKEN), e.g. --token "$(openssl rand -hex 16)", or listen on loopback, e.g. --http 127.0.0.1:8848`,
    )
  if (token !== undefined && token.length < 16)
    throw usageError(
      USAGE,
      `--token (or TOOLTX_MCP_TOKEN) must be at least 16 characters, got ${token.length}; e.g. --token "$(openssl rand -hex 16)"`,
    )
}

/** The flags of `tooltx mcp serve`. */
interface ServeFlags {
  workspace?: string
  http?: string
  token?: string
  tools?: string
  db?: string
  session?: string
  tasks?: string
}

/** The runtime and scope to serve: the user's tools module (Y3.4), else the workspace tools (Y3.1). */
async function servedTools(
  values: ServeFlags,
  reportError: (error: unknown) => void,
): Promise<{ runtime: ToolRuntime; scope?: RuntimeScope; what: string }> {
  if (values.tools !== undefined) {
    if (values.workspace !== undefined)
      throw usageError(
        USAGE,
        '--tools serves the tools of your module and --workspace the workspace tools; pass one of them',
      )
    const runtime = createToolRuntime({ reportError })
    await registerToolsModule(runtime, values.tools)
    if (runtime.view().surface().tools.length === 0)
      throw new UsageError(
        `the tools module ${values.tools} registered no tools, so there is nothing to serve`,
        2,
      )
    return { runtime, what: `the tools of ${path.resolve(values.tools)}` }
  }
  const workspace = workspaceFolder(values.workspace)
  return { ...createToolset({ root: workspace, reportError }), what: workspace }
}

/** The session `--session` names, opened for writing in `db` (Y3.5), or nothing without one. */
async function recordedSession(values: ServeFlags, out: Output) {
  if (values.session === undefined) {
    if (values.db !== undefined)
      throw usageError(
        USAGE,
        '--db needs --session ID: it names the database the served calls are recorded in',
      )
    return undefined
  }
  const id = values.session
  try {
    assertSessionId(id)
  } catch (error) {
    throw usageError(USAGE, `--session: ${(error as Error).message}`)
  }
  const db = values.db === undefined || values.db === '' ? DEFAULT_DB : values.db
  const store = openStore(db, out)
  const session = await openSession(store, { id }).catch(async (error: unknown) => {
    await store.close()
    throw new UsageError(`cannot record in session "${id}" of ${dbLabel(db)}: ${(error as Error).message}`)
  })
  const recorder = servedCallRecorder(session, {
    reportError: (e) => out.error(`tooltx: could not record a served call in session "${id}": ${String(e)}`),
  })
  return {
    id,
    db,
    recorder,
    async close() {
      await recorder.close()
      await session.close()
      await store.close()
      const calls = session.events().filter((event) => event.type === 'tool/call').length
      out.error(
        `tooltx: session ${id} now holds ${counted(calls, 'tool call')}. Replay it with: ${replayHint(id, db)}`,
      )
    },
  }
}

/**
 * The `tasks` option `--tasks` asks for (Y6.21): the named served tools, their tasks kept in the
 * recording's PostgreSQL database when it has one, else in memory. A name the view does not
 * serve is a usage error naming the served tools.
 */
function servedTasks(
  names: string | undefined,
  view: ToolView,
  db: string | undefined,
): ServeTasksOptions | undefined {
  if (names === undefined) return undefined
  const tools = names.split(',').map((name) => name.trim())
  const unknown = tools.find((name) => view.get(name) === undefined)
  if (unknown !== undefined)
    throw new UsageError(
      `--tasks: no served tool is named "${unknown}"; the served tools are ${view
        .list()
        .map((def) => def.name)
        .join(', ')}`,
      2,
    )
  return { tools, store: db !== undefined && isPostgres(db) ? postgresTaskStore(db) : memoryTaskStore() }
}

/**
 * Where the resumable streams' events are kept with the session database `db` (Y3.8, Y3.9): in it
 * when it is a PostgreSQL database or a SQLite file, so they outlive the process; `undefined`
 * (in memory) for a folder of `.jsonl` logs.
 */
function streamEvents(db: string): DatabaseEventStore | undefined {
  if (isPostgres(db)) return postgresEventStore(db)
  return isFolderStore(db) ? undefined : sqliteEventStore(db)
}

/** Resolves on the first Ctrl-C or SIGTERM, or, when `stdin` is given, when it ends. */
function stopped(stdin?: NodeJS.ReadableStream): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop)
      process.off('SIGTERM', stop)
      stdin?.off('end', stop)
      resolve()
    }
    process.on('SIGINT', stop)
    process.on('SIGTERM', stop)
    stdin?.on('end', stop)
  })
}

/**
 * Serves with the parsed flags of `tooltx mcp serve` until Ctrl-C, SIGTERM or (over stdio) the
 * end of stdin, then closes every MCP session and, with `--session`, the recorded session once
 * the running call is recorded.
 */
async function serve(values: ServeFlags, out: Output, env: NodeJS.ProcessEnv): Promise<number> {
  // Only a flag given on this command line is a mistake without --http: TOOLTX_MCP_TOKEN is set
  // for HTTP serving (a shell profile, a service file), so stdio serving ignores it.
  if (values.token !== undefined && values.http === undefined)
    throw usageError(
      USAGE,
      '--token needs --http: over stdio the client that spawned the server is the only peer',
    )
  // An empty TOOLTX_MCP_TOKEN is no token, as an unset one.
  const token = values.http === undefined ? undefined : (values.token ?? (env.TOOLTX_MCP_TOKEN || undefined))
  const address = values.http === undefined ? undefined : listenAddress(values.http)
  if (address !== undefined) httpGate(values.http!, address.host, token)
  // Over stdio, stdout carries MCP: contained errors go to stderr.
  const { runtime, scope, what } = await servedTools(values, (e) => out.error(`tooltx: ${String(e)}`))
  const tasks = servedTasks(
    values.tasks,
    runtime.view(scope),
    values.session === undefined ? undefined : values.db,
  )
  const recording = await recordedSession(values, out)
  const server = mcpServer(runtime, {
    ...(scope === undefined ? {} : { scope }),
    name: 'tooltx-workspace',
    version: '0.1.0',
    ...(recording === undefined ? {} : { wrapCall: recording.recorder.run }),
    ...(tasks === undefined ? {} : { tasks }),
  })
  const recorded = recording && `Recording every call in session ${recording.id} of ${recording.db}`
  let endpoint: HttpEndpoint | undefined
  let events: DatabaseEventStore | undefined
  try {
    if (address === undefined) {
      await serveStdio(server)
      out.error(`tooltx: serving ${what} over MCP stdio`)
      if (recorded !== undefined) out.error(`tooltx: ${recorded}`)
    } else {
      events = recording === undefined ? undefined : streamEvents(recording.db)
      endpoint = await serveHttp(server, {
        ...address,
        ...(token === undefined ? {} : { bearerToken: token }),
        ...(events === undefined ? {} : { eventStore: events }),
      })
      out.line(
        `MCP server for ${what} at ${endpoint.url.href}${token === undefined ? '' : ' (bearer token required)'}`,
      )
      if (recorded !== undefined) out.line(recorded)
      if (events !== undefined) out.line(`Resumable streams keep their events in ${dbLabel(recording!.db)}`)
    }
    await stopped(address === undefined ? process.stdin : undefined)
  } finally {
    await endpoint?.close()
    await server.close()
    await tasks?.store?.close()
    await events?.close()
    await recording?.close()
  }
  // The stdio transport leaves stdin open after a signal; nothing is read from it any more.
  if (address === undefined) process.stdin.destroy()
  return 0
}

const serveCommand = defineCommand(
  USAGE,
  { strings: ['workspace', 'http', 'token', 'tools', 'db', 'session', 'tasks'] },
  async ({ values, positionals }, out, env) => {
    noPositionals(USAGE, positionals)
    return await serve(values, out, env)
  },
)

/** `tooltx mcp`: its one subcommand, `serve`, with the arguments after it. */
export const command: Command = async (args, out, env) => {
  if (args[0] !== 'serve') throw usageError(USAGE, 'mcp needs a subcommand: serve')
  return await serveCommand(args.slice(1), out, env)
}
