import { execFile, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEFAULT_DB } from '../src/display/default-db.js'
import { BIN, cleanEnv, FIRST_USE_NOTICE, tooltx } from './cli-harness.js'

const run = promisify(execFile)

/** The timeline part of an output: from the first turn marker to the last. */
function timeline(stdout: string): string[] {
  const lines = stdout.split('\n')
  const first = lines.findIndex((line) => line.startsWith('── turn'))
  const last = lines.findLastIndex((line) => line.startsWith('── turn'))
  return lines.slice(first, last + 1)
}

let cwd: string
let demo: { code: number; stdout: string; stderr: string }
let sessionId: string

beforeAll(async () => {
  if (!existsSync(BIN)) throw new Error('the CLI is not built: run `npm run build` first (npm test does)')
  cwd = mkdtempSync(path.join(tmpdir(), 'tooltx-cli-'))
  demo = await tooltx(cwd, 'demo', '--fast')
  sessionId = /Replay it with: npx tooltx replay (\S+)/.exec(demo.stdout)?.[1] ?? ''
}, 60_000)

afterAll(() => rmSync(cwd, { recursive: true, force: true }))

describe('tooltx demo and replay', () => {
  it('demo runs the scripted agent live and says where the session is and how to replay it', () => {
    expect(demo.stderr).toBe(FIRST_USE_NOTICE)
    expect(demo.code).toBe(0)
    expect(sessionId).toMatch(/^demo-/)
    expect(demo.stdout).toContain(`Session saved as ${sessionId} in ${DEFAULT_DB}.`)
    // The parallel batch, the guard denial, the timeout and the approval all show up live.
    expect(demo.stdout).toContain('✗ read_file failed (DENIED)')
    expect(demo.stdout).toContain('✗ run_check failed (TOOL_TIMEOUT)')
    expect(demo.stdout).toContain('? approval for write_note: allowed-once')
    expect(demo.stdout).toContain('── turn 1 completed ──')
    // The runtime tour prints frozen results of direct calls, and the Code Mode comparison its saving.
    expect(demo.stdout).toContain('"code":"INVALID_ARGS"')
    expect(demo.stdout).toContain('"code":"UNKNOWN_TOOL"')
    expect(demo.stdout).toMatch(/saving: +\d+\.\d% fewer tool-result tokens in Code Mode/)
    expect(readFileSync(path.join(cwd, '.tooltx/demo-workspace/notes/todo-summary.md'), 'utf8')).toContain(
      '# Open TODOs',
    )
  })

  it('U1.8: replay prints, from the log alone, exactly the cards that were shown live', async () => {
    const replay = await tooltx(cwd, 'replay', sessionId)
    expect(replay.code).toBe(0)
    const live = timeline(demo.stdout)
    expect(live.length).toBeGreaterThan(20)
    expect(timeline(replay.stdout)).toEqual(live)
  })

  it('a reader that stops early (replay | head) ends the command quietly, not with a crash', async () => {
    const child = spawn(process.execPath, [BIN, 'replay', sessionId], { cwd, env: cleanEnv() })
    let stderr = ''
    child.stderr.on('data', (chunk) => {
      stderr += chunk
    })
    child.stdout.once('data', () => child.stdout.destroy())
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
    expect(stderr).toBe('')
    expect(code).toBe(0)
  })

  it('sessions lists the saved demo session with its event count', async () => {
    const listed = await tooltx(cwd, 'sessions')
    expect(listed.code).toBe(0)
    expect(listed.stdout).toMatch(new RegExp(`${sessionId}\\s+\\d+\\s`))
  })
})

describe('tooltx errors and help', () => {
  const refusals = [
    {
      title: 'replay of a missing session says so and how to list sessions',
      args: ['replay', 'no-such-session'],
      code: 1,
      says: ['no session "no-such-session"', 'tooltx sessions'],
    },
    {
      title: 'a bad flag is a usage error that points to the command help',
      args: ['demo', '--bogus'],
      code: 2,
      says: ['tooltx: demo has no option --bogus\nsee tooltx demo --help'],
    },
    {
      title: 'run without an API key says exactly what to set',
      args: ['run', 'summarise the TODOs'],
      code: 1,
      says: ['set OPENAI_API_KEY', 'ANTHROPIC_API_KEY'],
    },
  ]
  for (const refusal of refusals) {
    it(refusal.title, async () => {
      const result = await tooltx(cwd, ...refusal.args)
      expect(result.code).toBe(refusal.code)
      for (const text of refusal.says) expect(result.stderr).toContain(text)
    })
  }

  it('run against an unreachable endpoint fails with a clear error and still saves the session', async () => {
    const env = { ...cleanEnv(), OPENAI_API_KEY: 'test-key' }
    const result = await run(
      process.execPath,
      [BIN, 'run', 'hello', '--base-url', 'http://127.0.0.1:9/v1', '--workspace', cwd],
      { cwd, env },
    ).then(
      () => ({ code: 0, stdout: '', stderr: '' }),
      (e: { code: number; stdout: string; stderr: string }) => e,
    )
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('the run failed')
    expect(result.stderr).toMatch(/127\.0\.0\.1:9|connect|reach/i)
    expect(result.stdout).toContain('Session saved as run-')
  })

  it('run with a workspace that does not exist says so before anything starts', async () => {
    const bad = await tooltx(cwd, 'run', 'hello', '--workspace', path.join(cwd, 'missing'))
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('is not a directory')
  })

  it('every command has --help', async () => {
    for (const command of ['demo', 'run', 'sessions', 'replay']) {
      const help = await tooltx(cwd, command, '--help')
      expect(help.code).toBe(0)
      expect(help.stdout).toContain(`Usage: tooltx ${command}`)
    }
    const main = await tooltx(cwd, '--help')
    expect(main.stdout).toContain('Commands:')
  })
})
