/** Child processes for the tests that need real processes: fixtures run with tsx against the sources. */
import { type ChildProcess, spawn } from 'node:child_process'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const repo = fileURLToPath(new URL('../../../', import.meta.url))
const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url))

/** Starts `node --import tsx fixtures/<script> ...args` with piped stdio. */
export function child(script: string, args: string[] = []): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', join(fixtures, script), ...args], {
    cwd: repo,
    env: { ...process.env, TSX_TSCONFIG_PATH: join(repo, 'tsconfig.test.json') },
    stdio: ['pipe', 'pipe', 'pipe'],
  })
}

/** Collects stdout lines; `waitFor` resolves on the first line matching `prefix`. */
export function lines(proc: ChildProcess): { all: string[]; waitFor(prefix: string): Promise<string> } {
  const all: string[] = []
  const waiters: { prefix: string; resolve: (line: string) => void }[] = []
  let buffer = ''
  proc.stdout!.setEncoding('utf8')
  proc.stdout!.on('data', (chunk: string) => {
    buffer += chunk
    let nl = buffer.indexOf('\n')
    while (nl !== -1) {
      const line = buffer.slice(0, nl)
      buffer = buffer.slice(nl + 1)
      all.push(line)
      for (const w of waiters.splice(0)) {
        if (line.startsWith(w.prefix)) w.resolve(line)
        else waiters.push(w)
      }
      nl = buffer.indexOf('\n')
    }
  })
  return {
    all,
    waitFor: (prefix) =>
      new Promise((resolve) => {
        const found = all.find((l) => l.startsWith(prefix))
        if (found !== undefined) resolve(found)
        else waiters.push({ prefix, resolve })
      }),
  }
}

/** Resolves when `proc` has exited (at once if it already has). */
export const exited = (proc: ChildProcess): Promise<void> =>
  new Promise((resolve) => {
    if (proc.exitCode !== null || proc.signalCode !== null) resolve()
    else proc.once('exit', () => resolve())
  })
