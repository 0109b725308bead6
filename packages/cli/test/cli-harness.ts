import { execFile, spawnSync } from 'node:child_process'
import { chmodSync, cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { onTestFinished } from 'vitest'
import { DEFAULT_DB, DEFAULT_JSONL_PATH } from '../src/display/default-db.js'

const run = promisify(execFile)

/** The built CLI entry point. */
export const BIN = fileURLToPath(new URL('../dist/bin.js', import.meta.url))

/** The sample workspace bundled with the CLI. */
export const SAMPLE = fileURLToPath(new URL('../sample-workspace', import.meta.url))

/**
 * Whether the unprivileged user `nobody` can run the built CLI with this Node: false when this
 * checkout or the Node binary sits in a folder only its owner may enter (a root-only home, or a
 * private temporary folder). Tests that need a user root's permissions do not cover run as `nobody`.
 */
export function nobodyCanRunCli(): boolean {
  const probe = spawnSync(process.execPath, ['-e', `require('node:fs').accessSync(${JSON.stringify(BIN)})`], {
    uid: 65534,
    gid: 65534,
    stdio: 'ignore',
  })
  return probe.error === undefined && probe.status === 0
}

/**
 * What the first command that makes the default store prints on stderr (K3.21): one line where
 * this Node has no `node:sqlite` and the default is the JSONL folder, nothing where it is SQLite.
 */
export const FIRST_USE_NOTICE =
  DEFAULT_DB === DEFAULT_JSONL_PATH
    ? `tooltx: keeping sessions as .jsonl files in ${DEFAULT_JSONL_PATH}: Node ${process.versions.node} has no node:sqlite without a flag (Node >= 22.13 keeps them in SQLite at .tooltx/sessions.db)\n`
    : ''

/** What a finished CLI process printed and its exit status. */
export interface Finished {
  code: number
  stdout: string
  stderr: string
}

/** The environment without any model configuration. */
export function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env = { ...process.env }
  delete env.OPENAI_API_KEY
  delete env.ANTHROPIC_API_KEY
  delete env.OPENAI_BASE_URL
  return { ...env, ...extra }
}

/** Runs the built CLI the way a user would, in `cwd` (stdin and stdout are pipes). */
export async function tooltx(cwd: string, ...args: string[]): Promise<Finished> {
  return tooltxWith({ cwd }, ...args)
}

/** `tooltx` with more process options: an environment, or the user id to run as. */
export async function tooltxWith(
  options: { cwd: string; env?: NodeJS.ProcessEnv; uid?: number; gid?: number },
  ...args: string[]
): Promise<Finished> {
  if (!existsSync(BIN)) throw new Error('the CLI is not built: run `npm run build` first (npm test does)')
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, ...args], {
      ...options,
      env: options.env ?? cleanEnv(),
    })
    return { code: 0, stdout, stderr }
  } catch (error) {
    const e = error as Finished
    return { code: e.code, stdout: e.stdout, stderr: e.stderr }
  }
}

/** A fresh directory that is removed when the current test finishes (world-readable, for other users). */
export function scratch(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'tooltx-cli-'))
  chmodSync(dir, 0o755)
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

/** A scratch directory holding a copy of the sample workspace. */
export function sampleWorkspace(): string {
  const dir = scratch()
  cpSync(SAMPLE, dir, { recursive: true })
  return dir
}
