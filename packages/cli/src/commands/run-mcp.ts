/**
 * `tooltx run --mcp <cmd|url>` (Y4): MCP servers whose tools join the run's scope, each call
 * through the CLI's pipeline like a workspace tool's, plus an approval before every call,
 * because the server is another party whose annotations never relax policy.
 */
import { closeSync, mkdirSync, openSync } from 'node:fs'
import path from 'node:path'
import type { RuntimeScope, ToolRuntime } from '@tooltx/core'
import {
  type ClientCapabilityOptions,
  type McpAuth,
  type McpConnection,
  type McpToolSet,
  mcpTools,
} from '@tooltx/mcp'
import { UsageError } from '../display/output.js'

/** One `--mcp` value, understood: the server's name in tool names and how to reach it. */
export interface McpServerSpec {
  name: string
  connection: McpConnection
  /** The value as given, for messages. */
  given: string
}

/**
 * Splits a command line into words as a POSIX shell would for plain words, `'single'` and
 * `"double"` quotes and backslash escapes (no variables, globs or operators). Throws a usage
 * error for an unclosed quote.
 */
export function commandWords(line: string): string[] {
  const words: string[] = []
  // `undefined` between words; `''` once a word has begun, even as an empty quoted string.
  let word: string | undefined
  let quote: "'" | '"' | undefined
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!
    const next = line[i + 1]
    if (quote === undefined && /\s/.test(ch)) {
      if (word !== undefined) words.push(word)
      word = undefined
      continue
    }
    word ??= ''
    if (ch === quote) quote = undefined
    else if (quote === undefined && (ch === "'" || ch === '"')) quote = ch
    else if (
      ch === '\\' &&
      next !== undefined &&
      (quote === undefined || (quote === '"' && '"\\$`'.includes(next)))
    ) {
      word += next
      i++
    } else word += ch
  }
  if (quote !== undefined) throw new UsageError(`--mcp "${line}" has an unclosed ${quote} quote`, 2)
  if (word !== undefined) words.push(word)
  return words
}

/** Launchers whose first plain argument names the server (`npx -y @scope/server-x .`). */
const LAUNCHERS = new Set(['npx', 'node', 'bunx', 'bun', 'deno', 'uvx', 'pnpx', 'tsx', 'python', 'python3'])

/** Path segments that say nothing about the server (`…/server-x/dist/index.js`). */
const GENERIC = new Set([
  'index',
  'main',
  'cli',
  'server',
  'dist',
  'build',
  'bin',
  'lib',
  'src',
  'out',
  '.',
  '..',
])

/**
 * The default server name: for a URL its host (and port); for a command the package or file
 * it runs — the first word, or after a launcher its first argument that is not an option —
 * without scope, version, extension, generic path parts (`dist/index.js`) and the
 * `mcp-server-` / `server-` / `-mcp` decorations.
 */
function defaultName(words: readonly string[], url: URL | undefined): string {
  if (url !== undefined) return url.port === '' ? url.hostname : `${url.hostname}_${url.port}`
  const [first = 'mcp', ...rest] = words
  const launcher = LAUNCHERS.has(first.replace(/^.*[\\/]/, ''))
  const target = (launcher ? rest.find((w) => !w.startsWith('-') && w !== 'run') : undefined) ?? first
  const parts = target
    .replace(/@[^/@]*$/, '')
    .split(/[\\/]/)
    .map((part) => part.replace(/\.(m?[jt]s|cjs|py)$/, ''))
  const base = (parts.findLast((part) => part !== '' && !GENERIC.has(part)) ?? '')
    .replace(/^(mcp-server-|server-)/, '')
    .replace(/[-_]mcp$/, '')
  return base === '' ? 'mcp' : base
}

/**
 * Reads the `--mcp` values: `[NAME=]<command line>` spawns the command and speaks stdio,
 * `[NAME=]http(s)://…` speaks Streamable HTTP. A name used twice gets `_2`, `_3`, … Throws a
 * usage error (exit 2) for an empty value, a bad name or a command line that does not parse.
 */
export function mcpServerSpecs(values: readonly string[]): McpServerSpec[] {
  const seen = new Map<string, number>()
  return values.map((given) => {
    const named = /^([A-Za-z0-9_-]+)=(.*)$/s.exec(given)
    const target = (named === null ? given : named[2]!).trim()
    if (target === '')
      throw new UsageError(
        '--mcp needs a server: a command such as --mcp "npx @modelcontextprotocol/server-filesystem ." or a URL such as --mcp http://127.0.0.1:8848/mcp',
        2,
      )
    const url = /^https?:\/\//i.test(target) ? parseUrl(target) : undefined
    const words = url === undefined ? commandWords(target) : []
    const base = named?.[1] ?? defaultName(words, url)
    const count = (seen.get(base) ?? 0) + 1
    seen.set(base, count)
    const name = count === 1 ? base : `${base}_${count}`
    const connection: McpConnection =
      url !== undefined ? { url } : { command: words[0]!, args: words.slice(1), stderr: 'inherit' }
    return { name, connection, given }
  })
}

function parseUrl(value: string): URL {
  try {
    return new URL(value)
  } catch {
    throw new UsageError(`--mcp "${value}" is not a valid URL`, 2)
  }
}

/** The servers of a run, connected and registered; `close` unregisters and disconnects all. */
export interface RunServers {
  /** Per server: its name, how many tools it added, and the file its stderr goes to (a command's). */
  readonly imported: readonly { name: string; tools: number; skipped: number; log?: string }[]
  close(): Promise<void>
}

/**
 * The log file a spawned server's stderr is appended to, `<logs>/mcp-<name>.log`, opened for
 * appending: what a server says on stderr is kept apart from the run's timeline (K2.31).
 */
function serverLog(logs: string, name: string): { file: string; fd: number } {
  mkdirSync(logs, { recursive: true })
  const file = path.join(logs, `mcp-${name}.log`)
  return { file, fd: openSync(file, 'a') }
}

/**
 * Connects to every server in `specs` (in order), registers its tools (`mcp__<name>__<tool>`)
 * in `scope` and makes each of their calls ask for approval first. A command is spawned in
 * `workspace` (Y4.6), so a relative path means to the server what it means to the scope's
 * boundary guard and the workspace tools. Every server gets `workspace` as its one root (Y4.9)
 * and the person's side of `person`: the questions it asks, its requests for a completion and
 * its log (Y4.7, Y4.8, Y4.10). An HTTP server is given `authorize(spec)` as its OAuth (Y5.20).
 * When one cannot connect, the ones already connected are closed and it throws an error naming
 * the server and why. A command's stderr is appended to its log file in the folder `logs`
 * (`serverLog`), never mixed into the timeline.
 */
export async function connectRunServers(
  specs: readonly McpServerSpec[],
  runtime: ToolRuntime,
  scope: RuntimeScope,
  workspace: string,
  logs: string,
  person: Pick<ClientCapabilityOptions, 'onElicit' | 'onSample' | 'onLog'> = {},
  authorize?: (spec: McpServerSpec) => McpAuth,
): Promise<RunServers> {
  const sets: { spec: McpServerSpec; set: McpToolSet; log?: string }[] = []
  const fds: number[] = []
  const closeAll = async () => {
    await Promise.allSettled(sets.map(({ set }) => set.close()))
    for (const fd of fds.splice(0)) closeSync(fd)
  }
  for (const spec of specs) {
    const log = 'command' in spec.connection ? serverLog(logs, spec.name) : undefined
    if (log !== undefined) fds.push(log.fd)
    try {
      const connection =
        'command' in spec.connection
          ? { ...spec.connection, cwd: workspace, stderr: log!.fd }
          : { ...spec.connection, ...(authorize === undefined ? {} : { auth: authorize(spec) }) }
      const set = await mcpTools(connection, { name: spec.name, roots: [workspace], ...person })
      sets.push({ spec, set, ...(log === undefined ? {} : { log: log.file }) })
    } catch (error) {
      await closeAll()
      const see = log === undefined ? '' : ` (its stderr is in ${log.file})`
      throw new Error(
        `--mcp "${spec.given}": cannot connect to the MCP server: ${error instanceof Error ? error.message : String(error)}${see}`,
      )
    }
  }
  const offs = sets.map(({ set }) => set.register(scope))
  offs.push(
    runtime.onPreExecute(
      async (exec, next) => {
        // The sets' current listings: a tool a server adds later asks like the first ones.
        const server = sets.find(({ set }) => set.tools.some((def) => def.name === exec.name))?.spec.name
        return server === undefined
          ? next()
          : { kind: 'ask', reason: `calls a tool of the MCP server "${server}"` }
      },
      { scope },
    ),
  )
  return {
    imported: sets.map(({ spec, set, log }) => ({
      name: spec.name,
      tools: set.tools.length,
      skipped: set.skipped.length,
      ...(log === undefined ? {} : { log }),
    })),
    async close() {
      for (const off of offs) off()
      await closeAll()
    },
  }
}
