import { spawn } from 'node:child_process'
import { DEFAULT_DB } from '../display/default-db.js'
import type { Output } from '../display/output.js'
import { resolveSession } from '../session-store.js'
import { cliDefinitions } from '../session-timeline.js'
import { startViewerServer, type ViewerServer } from '../viewer/viewer-server.js'
import { openViewerSource } from '../viewer/viewer-source.js'
import { type Command, defineCommand } from './command.js'
import { type CommandUsage, dbPath, defined, usageError } from './flags.js'

/** `tooltx view`: its help, printed by `--help`; a usage error points to it. */
const USAGE: CommandUsage = {
  name: 'view',
  help: `Usage: tooltx view [id | latest | id-prefix] [options]

Serves the saved sessions as a web page on this machine (127.0.0.1 only) and prints its URL:
every session, and each one's turns, steps and calls as cards, with filters and links to
events. A session still being written updates in place. Nothing is changed in the store, and
the page loads nothing from the network. Ctrl-C stops it.

Options:
  --db PATH        a SQLite database, a folder of .jsonl logs or postgres://… (default
                   ${DEFAULT_DB}); PostgreSQL sessions update as they are appended
  --port N         the port (default: a free one)
  --open           open the page in the default browser
  -h, --help       show this help`,
}

/** Options of `tooltx view`. */
export interface ViewCommandOptions {
  /** A SQLite database file, a folder of `.jsonl` logs or a PostgreSQL connection string. */
  readonly db: string
  /** A session to open at once: an id, `latest` or the start of one id. */
  readonly id?: string
  readonly port: number
  /** Open the page in the default browser too. */
  readonly open: boolean
  /** Resolves when the viewer should stop (default: Ctrl-C or SIGTERM). */
  readonly stopped?: Promise<void>
}

/** Asks the desktop to open `url`; a desktop without an opener is told about, not fatal. */
function openBrowser(url: string, out: Output): void {
  const [command, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '""', url]]
        : ['xdg-open', [url]]
  const child = spawn(command, args as string[], { stdio: 'ignore', detached: true })
  child.on('error', () => out.error(`tooltx: could not open a browser (${command}); open ${url} yourself`))
  child.unref()
}

/** Resolves on the first Ctrl-C or SIGTERM. */
function signalled(): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop)
      process.off('SIGTERM', stop)
      resolve()
    }
    process.on('SIGINT', stop)
    process.on('SIGTERM', stop)
  })
}

/**
 * `tooltx view` (G2.3): serves the sessions of a store as a web page on loopback, prints its URL
 * (the session's page when `id` is given), and keeps serving until stopped. The store is only read.
 */
export async function viewCommand(options: ViewCommandOptions, out: Output): Promise<number> {
  const source = openViewerSource(options.db)
  let server: ViewerServer | undefined
  try {
    // Read once before serving, so a store that cannot be read (a database that is down) fails here.
    const sessions = await source.reader.listSessions()
    let page = '/'
    if (options.id !== undefined) {
      const id = resolveSession(options.id, sessions, source.label)
      page = `/session/${encodeURIComponent(id)}`
    }
    server = await startViewerServer({ source, definitions: cliDefinitions(), port: options.port })
    const url = `${server.url}${page}`
    out.line(`tooltx view: serving ${source.label} at ${url}`)
    out.line('Press Ctrl-C to stop.')
    if (options.open) openBrowser(url, out)
    await (options.stopped ?? signalled())
    return 0
  } finally {
    await server?.close()
    await source.close()
  }
}

/** `tooltx view [id]`: at most one session, and a port from 0 to 65535. */
export const command: Command = defineCommand(
  USAGE,
  { strings: ['db', 'port'], booleans: ['open'] },
  async ({ values, positionals }, out) => {
    if (positionals.length > 1)
      throw usageError(USAGE, `view takes at most one session id, got "${positionals.join(' ')}"`)
    const port = values.port === undefined ? 0 : Number(values.port)
    if (!/^\d{1,5}$/.test(values.port ?? '0') || port > 65_535)
      throw usageError(USAGE, `--port must be a number from 0 to 65535, got "${values.port}"`)
    return await viewCommand(
      { db: dbPath(values.db), ...defined({ id: positionals[0] }), port, open: values.open === true },
      out,
    )
  },
)
