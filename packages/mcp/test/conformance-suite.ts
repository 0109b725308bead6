/**
 * The official MCP conformance framework (`@modelcontextprotocol/conformance`) driven from a test:
 * installed once into its own prefix (it needs Node >= 22, so the workspace's `npm ci`, which CI
 * also runs on Node 20, does not install it), then run against a server URL or a client command,
 * each scenario read back from the `checks.json` the framework writes.
 */
import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync } from 'node:fs'
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join, relative, sep } from 'node:path'
import { fixture } from './mcp.fixtures.js'

/** The folder holding the framework's pinned `package.json` and lock. */
const PREFIX = fixture('conformance')
/** Where the digest of the lock an install was made from is kept. */
export const FRAMEWORK_STAMP = join(PREFIX, 'node_modules', '.tooltx-lock-digest')
const CLI = join(PREFIX, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js')

/** What one scenario came to: `pass` when none of its checks failed, as the framework counts it. */
export type Outcome = 'pass' | 'fail'

/** Runs `command` with `args`, resolving with its output whatever its exit code. */
function run(command: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv = process.env) {
  return new Promise<{ code: number | null; output: string }>((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8')
    })
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8')
    })
    child.once('error', reject)
    child.once('close', (code) => resolve({ code, output }))
  })
}

/** The SHA-256 of the framework's lock. */
export async function lockDigest(): Promise<string> {
  return createHash('sha256')
    .update(await readFile(join(PREFIX, 'package-lock.json')))
    .digest('hex')
}

/**
 * Installs the framework with `npm ci --prefix` unless the installed copy was made from the
 * current lock (a digest of the lock is kept beside it), and returns the path of its CLI.
 */
export async function installFramework(): Promise<string> {
  const digest = await lockDigest()
  if (existsSync(CLI) && existsSync(FRAMEWORK_STAMP) && (await readFile(FRAMEWORK_STAMP, 'utf8')) === digest)
    return CLI
  // The npm beside the running Node first, so a Node >= 22 install is done by its own npm.
  const env = { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}` }
  const npm = await run('npm', ['ci', '--no-audit', '--no-fund', '--prefix', PREFIX], PREFIX, env)
  if (npm.code !== 0) throw new Error(`npm ci --prefix ${PREFIX} failed:\n${npm.output}`)
  await writeFile(FRAMEWORK_STAMP, digest)
  return CLI
}

/** The scenario a result folder is named after: `<scenario>-<timestamp>`, `server-` first for a server run. */
function scenarioOf(folder: string, mode: 'server' | 'client'): string {
  const name = folder
    .split(sep)
    .join('/')
    .replace(/-\d{4}-\d\d-\d\dT[\d-]+Z$/, '')
  return mode === 'server' ? name.replace(/^server-/, '') : name
}

/** Every `checks.json` under `root`, as the folders holding them. */
async function checkFolders(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true })
  return entries.filter((entry) => entry.endsWith('checks.json')).map((entry) => dirname(join(root, entry)))
}

/** The outcome of each scenario of one framework run, by scenario name. */
async function outcomes(root: string, mode: 'server' | 'client'): Promise<Map<string, Outcome>> {
  const result = new Map<string, Outcome>()
  for (const folder of await checkFolders(root)) {
    const checks = JSON.parse(await readFile(join(folder, 'checks.json'), 'utf8')) as { status: string }[]
    const passed = !checks.some((check) => check.status === 'FAILURE')
    result.set(scenarioOf(relative(root, folder), mode), passed ? 'pass' : 'fail')
  }
  return result
}

/**
 * Runs every scenario of the framework (`--suite all`: the pending ones too) against the server
 * at `url` (`mode: 'server'`) or the client started by `command` (`mode: 'client'`), and returns
 * each scenario's outcome. Throws when the framework wrote no results at all.
 */
export async function runConformance(
  cli: string,
  mode: 'server' | 'client',
  target: string,
): Promise<Map<string, Outcome>> {
  const out = await mkdtemp(join(tmpdir(), `tooltx-conformance-${mode}-`))
  try {
    const targetFlag = mode === 'server' ? ['--url', target] : ['--command', target]
    const { output } = await run(
      process.execPath,
      [cli, mode, ...targetFlag, '--suite', 'all', '-o', out],
      out,
    )
    const result = await outcomes(out, mode)
    if (result.size === 0) throw new Error(`the conformance framework reported no scenario:\n${output}`)
    return result
  } finally {
    await rm(out, { recursive: true, force: true })
  }
}
