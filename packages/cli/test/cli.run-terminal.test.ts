import { spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { DEFAULT_DB } from '../src/display/default-db.js'
import {
  BIN,
  cleanEnv,
  FIRST_USE_NOTICE,
  sampleWorkspace,
  scratch,
  tooltx,
  tooltxWith,
} from './cli-harness.js'
import { fakeModel, slowModel, toolMessage } from './fake-model.js'
import { processesMentioning, tooltxPid } from './processes.js'
import { hasTmux, Terminal } from './terminal.js'

const NOTE_CALL = {
  id: 'call_note',
  name: 'write_file',
  arguments: JSON.stringify({ path: 'notes/plan.md', content: '# Plan\n\nship it' }),
}

/** A shell call running the sample workspace's slow check, which runs unasked with `--allow-shell node`. */
const SLOW_CALL = { id: 'call_slow', name: 'shell', arguments: '{"command":"node scripts/slow-check.mjs"}' }

/** `tooltx run` against `baseURL` with the workspace `ws`, as argv for a terminal. */
function runArgv(ws: string, baseURL: string, ...extra: string[]): string[] {
  return [process.execPath, BIN, 'run', 'make a plan', '--workspace', ws, '--base-url', baseURL, ...extra]
}

const modelEnv = () => cleanEnv({ OPENAI_API_KEY: 'test-key' })

describe.skipIf(!hasTmux())('tooltx run at a terminal (tmux)', () => {
  it('K2.12: before the first token a live "waiting for <model> (<n> s)" line counts up; the reply streams as it arrives, shown once', async () => {
    const ws = sampleWorkspace()
    const baseURL = await slowModel(['Hello, ', 'streaming ', 'world.'], 2_500, 1_500)
    const term = await Terminal.start(runArgv(ws, baseURL), { cwd: ws, env: modelEnv() })
    await term.waitFor(/waiting for openai-compatible:gpt-5\.4-mini \(0 s\)/)
    await term.waitFor(/waiting for openai-compatible:gpt-5\.4-mini \(2 s\)/)
    // The first pieces are on screen while the last one is still 1.5 s away.
    const partial = await term.waitFor(/^ {4}assistant: Hello, streaming $/m)
    expect(partial).not.toContain('waiting for')
    expect(partial).not.toContain('world.')
    const { code, screen } = await term.exit()
    expect(code).toBe(0)
    expect(screen).toContain('    assistant: Hello, streaming world.\n── turn 1 completed ──')
    expect(screen.split('assistant:')).toHaveLength(2)
    expect(screen).not.toContain('waiting for')
  })

  it('K2.1: the approval prompt stays visible over the spinner, shows the card and arguments, and echoes the answer', async () => {
    const ws = sampleWorkspace()
    const model = await fakeModel([{ toolCalls: [NOTE_CALL] }, { text: 'Saved the plan.' }])
    const term = await Terminal.start(runArgv(ws, model.baseURL), { cwd: ws, env: modelEnv() })
    await term.waitFor(/Allow write_file\? \[y\/N\] $/m)
    // The spinner ticks every 80 ms: after several ticks the question must still be on screen.
    await new Promise((resolve) => setTimeout(resolve, 500))
    await term.keys('y')
    const asked = await term.waitFor(/Allow write_file\? \[y\/N\] y$/m)
    expect(asked).toContain(
      '    ? approval asked for write_file: creates notes/plan.md (a new file, 3 lines)',
    )
    expect(asked).toContain('    ┌ Write notes/plan.md  [edit]')
    expect(asked).toContain('    │ arguments: {"path":"notes/plan.md","content":"# Plan\\n\\nship it"}')
    expect(asked).not.toMatch(/running: write_file.*Allow/)
    await term.keys('Enter')
    const { code, screen } = await term.exit()
    expect(code).toBe(0)
    expect(screen).toContain('    ? approval for write_file: allowed-once')
    expect(screen).toContain('── turn 1 completed ──')
    expect(readFileSync(path.join(ws, 'notes/plan.md'), 'utf8')).toBe('# Plan\n\nship it')
  })

  it('K2.9: long arguments show their start and end with how much is hidden; "a" prints them whole and asks again', async () => {
    const ws = sampleWorkspace()
    const text = `# Plan${' '.repeat(3_000)}and also delete the backups`
    const call = { ...NOTE_CALL, arguments: JSON.stringify({ path: 'notes/plan.md', content: text }) }
    const model = await fakeModel([{ toolCalls: [call] }, { text: 'Saved the plan.' }])
    const term = await Terminal.start(runArgv(ws, model.baseURL), {
      cwd: ws,
      env: modelEnv(),
      width: 200,
      height: 60,
    })
    const prompt = /Allow write_file\? \[y\/N, a = show all arguments\] $/m
    const asked = await term.waitFor(prompt)
    const hidden = (call.arguments.length - 1_600).toLocaleString('en-US')
    expect(asked).toContain(
      `    │ arguments (${call.arguments.length.toLocaleString('en-US')} characters; the ${hidden} in the middle are not shown here):`,
    )
    expect(asked).toContain(`    │   [… ${hidden} characters not shown …]`)
    expect(asked).toMatch(/and also delete the backups"\}\n/)
    expect(asked).toMatch(/to see these arguments \(digest [0-9a-f]{64}\) whole, answer "a" below/)
    await term.keys('a', 'Enter')
    const again = await term.waitFor(/show all arguments\] a\n[\s\S]*show all arguments\] $/m)
    expect(again).toMatch(
      /show all arguments\] a\n {4}│ arguments: \{"path":"notes\/plan\.md","content":"# Plan {40}/,
    )
    await term.keys('y', 'Enter')
    const { code, screen } = await term.exit()
    expect(code).toBe(0)
    expect(screen).toContain('    ? approval for write_file: allowed-once')
    expect(readFileSync(path.join(ws, 'notes/plan.md'), 'utf8')).toBe(text)
  })

  it('K5.7: approve at a terminal shows the arguments whole and records the approval only when confirmed', async () => {
    const cwd = scratch()
    const demo = await tooltx(cwd, 'demo', '--fast', '--durable')
    const id = /Session saved as (\S+) in /.exec(demo.stdout)![1]!
    const argv = [process.execPath, BIN, 'approve', id, 'call_note', '--by', 'carol']
    const prompt = /Approve write_note with these arguments\? \[y\/N\] $/m
    const first = await Terminal.start(argv, { cwd, env: cleanEnv() })
    const asked = await first.waitFor(prompt)
    expect(asked).toContain(`write_note (call call_note) in ${id}`)
    expect(asked).toMatch(/^ {4}arguments: \{"name":"todo-summary\.md","text":"# Open TODOs/m)
    expect(asked).toMatch(/^ {4}digest: [0-9a-f]{64}$/m)
    await first.keys('n', 'Enter')
    const declined = await first.exit()
    expect(declined.code).toBe(1)
    expect(declined.screen).toContain('tooltx: you did not confirm, so nothing was recorded')
    expect((await tooltx(cwd, 'approvals')).stdout).toContain(`${id}  call call_note  write_note`)
    const second = await Terminal.start(argv, { cwd, env: cleanEnv() })
    await second.waitFor(prompt)
    await second.keys('y', 'Enter')
    const approved = await second.exit()
    expect(approved.code).toBe(0)
    expect(approved.screen).toContain(`approved write_note (call call_note) in ${id}, by carol`)
    expect((await tooltx(cwd, 'approvals')).stdout).toBe(`no approvals are waiting in ${DEFAULT_DB}\n`)
  }, 60_000)

  it('K2.1: any answer but y or yes rejects the call', async () => {
    const ws = sampleWorkspace()
    const model = await fakeModel([{ toolCalls: [NOTE_CALL] }, { text: 'Not saved.' }])
    const term = await Terminal.start(runArgv(ws, model.baseURL), { cwd: ws, env: modelEnv() })
    await term.waitFor(/Allow write_file\? \[y\/N\] $/m)
    await term.keys('nope', 'Enter')
    const { code, screen } = await term.exit()
    expect(code).toBe(0)
    expect(screen).toContain('    ? approval for write_file: rejected')
    expect(toolMessage(model, 'call_note')).toBe('Error: the user rejected tool "write_file"')
    expect(existsSync(path.join(ws, 'notes/plan.md'))).toBe(false)
  })

  it('K2.3: Ctrl-C at the prompt aborts the run: recorded as aborted, no further model request, exit status 130', async () => {
    const ws = sampleWorkspace()
    const model = await fakeModel([{ toolCalls: [NOTE_CALL] }, { text: 'must not be asked' }])
    const term = await Terminal.start(runArgv(ws, model.baseURL), { cwd: ws, env: modelEnv() })
    await term.waitFor(/Allow write_file\? \[y\/N\] $/m)
    await term.keys('C-c')
    const { code, screen } = await term.exit()
    expect(code).toBe(130)
    expect(screen).toContain('    ? approval for write_file: cancelled')
    expect(screen).toContain('✗ write_file failed (ABORTED_BEFORE_DISPATCH)')
    expect(screen).toContain('── turn 1 aborted ──')
    expect(screen).toContain('tooltx: interrupted (Ctrl-C); the turn was recorded as aborted')
    expect(model.requests).toHaveLength(1)
    expect(existsSync(path.join(ws, 'notes/plan.md'))).toBe(false)
    const replay = await tooltx(ws, 'replay', 'latest')
    expect(replay.stdout).toContain('── turn 1 aborted ──')
  })

  it('K2.3: Ctrl-C while a check runs kills it and aborts the run with exit status 130', async () => {
    const ws = sampleWorkspace()
    const model = await fakeModel([{ toolCalls: [SLOW_CALL] }, { text: 'must not be asked' }])
    const argv = runArgv(ws, model.baseURL, '--allow-shell', 'node')
    const term = await Terminal.start(argv, { cwd: ws, env: modelEnv() })
    await term.waitFor(/▶ \$ node scripts\/slow-check\.mjs/)
    await term.keys('C-c')
    const { code, screen } = await term.exit()
    expect(code).toBe(130)
    // The child is killed: the check reports it stopped, or the abort wins the race (ABORTED).
    expect(screen).toMatch(/✗ shell failed \((SHELL_STOPPED|ABORTED)\)/)
    expect(screen).toContain('── turn 1 aborted ──')
    expect(model.requests).toHaveLength(1)
    expect(processesMentioning(path.join(ws, 'scripts/slow-check.mjs'))).toEqual([])
  })

  it('K2.10: SIGTERM while the demo asks cancels the approval, records the turn aborted and exits 143', async () => {
    const cwd = scratch()
    const term = await Terminal.start([process.execPath, BIN, 'demo', '--fast'], { cwd, env: cleanEnv() })
    await term.waitFor(/Allow write_note\? \[y\/N\] $/m, 60_000)
    process.kill(tooltxPid(cwd), 'SIGTERM')
    const { code, screen } = await term.exit()
    expect(code).toBe(143)
    expect(screen).toContain('    ? approval for write_note: cancelled')
    expect(screen).toContain('── turn 1 aborted ──')
    expect(screen).toContain('tooltx: terminated (SIGTERM); the turn was recorded as aborted')
    expect(screen).not.toContain('Under the hood')
    expect(existsSync(path.join(cwd, '.tooltx/demo-workspace/notes/todo-summary.md'))).toBe(false)
    const replay = await tooltx(cwd, 'replay', 'latest')
    expect(replay.stdout.trimEnd().split('\n').at(-1)).toBe('── turn 1 aborted ──')
  }, 90_000)

  it('K2.6: the demo asks the person at the terminal to approve its write', async () => {
    const cwd = scratch()
    const term = await Terminal.start([process.execPath, BIN, 'demo', '--fast'], { cwd, env: cleanEnv() })
    const asked = await term.waitFor(/Allow write_note\? \[y\/N\] $/m)
    expect(asked).toContain('    ┌ Write notes/todo-summary.md')
    expect(asked).not.toContain('no terminal to ask')
    await term.keys('n', 'Enter')
    const { code, screen } = await term.exit(60_000)
    expect(code).toBe(0)
    expect(screen).toContain('Allow write_note? [y/N] n')
    expect(screen).toContain('    ? approval for write_note: rejected')
    expect(existsSync(path.join(cwd, '.tooltx/demo-workspace/notes/todo-summary.md'))).toBe(false)
  }, 90_000)

  it('K2.5, K2.7: demo --yes does not ask, and the "Under the hood" lines wrap at the terminal width', async () => {
    const cwd = scratch()
    const width = 80
    const term = await Terminal.start([process.execPath, BIN, 'demo', '--fast', '--yes'], {
      cwd,
      env: cleanEnv(),
      width,
    })
    const { code, screen } = await term.exit(60_000)
    expect(code).toBe(0)
    expect(screen).not.toContain('Allow write_note?')
    expect(screen).toContain('approval: --yes, so the write is approved without asking')
    expect(screen).toContain('    ? approval for write_note: allowed-once')
    const lines = screen.split('\n')
    const tour = lines.slice(
      lines.findIndex((line) => line.startsWith('Under the hood')),
      lines.findIndex((line) => line.startsWith('Code Mode comparison')),
    )
    expect(tour.length).toBeGreaterThan(14)
    expect(tour.filter((line) => [...line].length > width)).toEqual([])
    // The long schema line continues on indented lines.
    const schema = tour.findIndex((line) => line.startsWith('  model-facing schema of read_file: '))
    expect(tour[schema + 1]).toMatch(/^ {6}\S/)
  }, 90_000)
})

describe('tooltx run without a terminal', () => {
  it('K2.2: a write that needs approval is refused as unavailable, saying no one could be asked and how to allow', async () => {
    const ws = sampleWorkspace()
    const model = await fakeModel([{ toolCalls: [NOTE_CALL] }, { text: 'Could not save.' }])
    const result = await tooltxWith(
      { cwd: ws, env: modelEnv() },
      'run',
      'make a plan',
      '--workspace',
      ws,
      '--base-url',
      model.baseURL,
    )
    expect(result.code).toBe(0)
    expect(result.stderr).toBe(
      FIRST_USE_NOTICE +
        'tooltx: write_file needs approval, but no one could be asked (stdin or stdout is not a terminal), so it was refused. ' +
        'To allow it, run at a terminal and answer the prompt, or pass --yes to approve every write.\n',
    )
    expect(result.stdout).toContain('    ? approval for write_file: unavailable')
    expect(toolMessage(model, 'call_note')).toBe(
      'Error: tool "write_file" requires approval, but the approval channel is unavailable',
    )
    expect(existsSync(path.join(ws, 'notes/plan.md'))).toBe(false)
  })

  it('K2.4: when stdout closes mid-run the turn is recorded as aborted, the check is killed and the exit status is 141', async () => {
    const ws = sampleWorkspace()
    const model = await fakeModel([
      {
        toolCalls: [{ id: 'call_readme', name: 'read_file', arguments: '{"path":"README.md"}' }, SLOW_CALL],
      },
      { text: 'must not be asked' },
    ])
    const argv = runArgv(ws, model.baseURL, '--allow-shell', 'node').slice(1)
    const child = spawn(process.execPath, argv, { cwd: ws, env: modelEnv() })
    let stdout = ''
    let stderr = ''
    child.stderr.on('data', (piece) => {
      stderr += piece
    })
    child.stdout.on('data', (piece) => {
      stdout += piece
      if (stdout.includes('▶ Read README.md')) child.stdout.destroy()
    })
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
    const slow = path.join(ws, 'scripts/slow-check.mjs')
    const orphans = processesMentioning(slow)
    for (const pid of orphans) process.kill(pid)
    expect(orphans).toEqual([])
    expect(code).toBe(141)
    expect(stderr).toBe(
      FIRST_USE_NOTICE +
        'tooltx: stdout was closed, so the run was stopped; the turn was recorded as aborted\n',
    )
    expect(model.requests).toHaveLength(1)
    const replay = await tooltx(ws, 'replay', 'latest')
    expect(replay.stdout.trimEnd().split('\n').at(-1)).toBe('── turn 1 aborted ──')
  })
  it.each([
    ['SIGTERM', 143, 'terminated (SIGTERM)'],
    ['SIGHUP', 129, 'hung up (SIGHUP)'],
  ] as const)(
    'K2.10: %s while a check runs kills it, records the turn aborted and exits %i',
    async (signal, status, note) => {
      const ws = sampleWorkspace()
      const model = await fakeModel([{ toolCalls: [SLOW_CALL] }, { text: 'must not be asked' }])
      const argv = runArgv(ws, model.baseURL, '--allow-shell', 'node').slice(1)
      const child = spawn(process.execPath, argv, { cwd: ws, env: modelEnv() })
      let stdout = ''
      let stderr = ''
      child.stderr.on('data', (piece) => {
        stderr += piece
      })
      child.stdout.on('data', (piece) => {
        const started = stdout.includes('▶ $ node scripts/slow-check.mjs')
        stdout += piece
        if (!started && stdout.includes('▶ $ node scripts/slow-check.mjs')) child.kill(signal)
      })
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
      const slow = path.join(ws, 'scripts/slow-check.mjs')
      const orphans = processesMentioning(slow)
      for (const pid of orphans) process.kill(pid)
      expect(orphans).toEqual([])
      expect(code).toBe(status)
      expect(stderr).toBe(`${FIRST_USE_NOTICE}tooltx: ${note}; the turn was recorded as aborted\n`)
      expect(stdout).toMatch(/✗ shell failed \((SHELL_STOPPED|ABORTED)\)/)
      expect(model.requests).toHaveLength(1)
      const replay = await tooltx(ws, 'replay', 'latest')
      expect(replay.stdout.trimEnd().split('\n').at(-1)).toBe('── turn 1 aborted ──')
    },
  )
})

describe('tooltx usage errors and --version', () => {
  it('K2.8: every usage error exits 2 with its line and where the help is, a bad --provider included', async () => {
    const cwd = scratch()
    const cases: [string[], string][] = [
      [['run', 'hi', '--provider', 'mistral'], '--provider must be openai or anthropic, got "mistral"'],
      [['run', 'hi', '--mode', 'fast'], '--mode must be native, code or both, got "fast"'],
      [['run'], 'run needs a task'],
      [['replay'], 'replay needs exactly one session id'],
      [['sessions', 'extra'], 'sessions takes no arguments'],
      [['frobnicate'], 'unknown command "frobnicate"'],
    ]
    for (const [args, message] of cases) {
      const result = await tooltx(cwd, ...args)
      expect({ args, code: result.code }).toEqual({ args, code: 2 })
      // K2.26: the one line that matters and where the help is, never the whole help.
      const help = args[0] === 'frobnicate' ? 'see tooltx --help' : `see tooltx ${args[0]} --help`
      expect(result.stderr.split('\n')).toEqual([expect.stringContaining(message), help, ''])
    }
  })

  it('K2.8: --version prints the version of the package', async () => {
    const cwd = scratch()
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      version: string
    }
    const result = await tooltx(cwd, '--version')
    expect(result).toEqual({ code: 0, stdout: `tooltx ${pkg.version}\n`, stderr: '' })
  })
})
