/**
 * A PostgreSQL server of the test's own, for tests that restart it (never the shared one):
 * Debian's binaries, a temporary directory, a free loopback port, and the user `nobody` when
 * run as root (the server refuses root), as .ci/postgres starts the shared one.
 */
import { execFile } from 'node:child_process'
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'

const run = promisify(execFile)

/** The directory of the newest installed PostgreSQL's binaries, or `undefined`. */
export function postgresBinaries(): string | undefined {
  const root = '/usr/lib/postgresql'
  if (!existsSync(root)) return undefined
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(a) - Number(b))
  return versions.length === 0 ? undefined : join(root, versions.at(-1)!, 'bin')
}

/** A running throwaway server. */
export interface ThrowawayPostgres {
  /** `postgres://tooltx@127.0.0.1:<port>/postgres` */
  readonly url: string
  /** `pg_ctl restart -m fast`: every connection is closed, and the server is back when this resolves. */
  restart(): Promise<void>
  /** Stops the server and removes its directory. */
  stop(): Promise<void>
}

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })

/** Initializes and starts a server in a new temporary directory. */
export async function startThrowawayPostgres(bin: string): Promise<ThrowawayPostgres> {
  const dir = mkdtempSync(join(tmpdir(), 'tooltx-pg-'))
  const root = process.getuid?.() === 0
  if (root) chownSync(dir, 65534, 65534)
  const as = (file: string, args: string[]) =>
    root ? run('runuser', ['-u', 'nobody', '--', join(bin, file), ...args]) : run(join(bin, file), args)
  const data = join(dir, 'data')
  const port = await freePort()
  await as('initdb', ['-D', data, '-U', 'tooltx', '-A', 'trust', '-E', 'UTF8', '--no-sync'])
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`
  const ctl = (action: string) =>
    as('pg_ctl', [
      '-D',
      data,
      '-l',
      join(dir, 'server.log'),
      '-w',
      '-t',
      '30',
      '-m',
      'fast',
      '-o',
      options,
      action,
    ])
  await ctl('start')
  return {
    url: `postgres://tooltx@127.0.0.1:${port}/postgres`,
    async restart() {
      await ctl('restart')
    },
    async stop() {
      await ctl('stop').catch(() => {})
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
