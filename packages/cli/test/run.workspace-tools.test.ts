import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { BIN, cleanEnv, sampleWorkspace, tooltx } from './cli-harness.js'
import { fakeModel, toolMessage } from './fake-model.js'
import { processesMentioning, tooltxPid } from './processes.js'
import { hasTmux, Terminal } from './terminal.js'

/** `tooltx run` of the general workspace tools against `baseURL` in `ws`, as argv for a terminal. */
function runArgv(ws: string, baseURL: string, ...extra: string[]): string[] {
  return [process.execPath, BIN, 'run', 'tidy up', '--workspace', ws, '--base-url', baseURL, ...extra]
}

const modelEnv = () => cleanEnv({ OPENAI_API_KEY: 'test-key' })

/** A tool call of the fake model. */
function call(id: string, name: string, args: Record<string, unknown>) {
  return { id, name, arguments: JSON.stringify(args) }
}

/** A model that makes `calls` in one reply, then says `done.`. */
const modelCalling = (...calls: ReturnType<typeof call>[]) =>
  fakeModel([{ toolCalls: calls }, { text: 'done.' }])

/** Waits until no process mentions `needle` (a killed group takes a moment to be reaped); the survivors. */
async function survivors(needle: string): Promise<number[]> {
  for (let i = 0; i < 20 && processesMentioning(needle).length > 0; i++)
    await new Promise((r) => setTimeout(r, 100))
  const left = processesMentioning(needle)
  for (const pid of left) process.kill(pid, 'SIGKILL')
  return left
}

describe.skipIf(!hasTmux())('the general workspace tools of tooltx run at a terminal (tmux)', () => {
  it('K2.15, K2.20: an edit is approved as the true diff against the file as it is now, shown once, and replay shows it too', async () => {
    const ws = sampleWorkspace()
    writeFileSync(path.join(ws, 'hello.txt'), 'one\ntwo\nthree\n')
    const model = await modelCalling(
      call('call_edit', 'edit_file', { path: 'hello.txt', old_text: 'two', new_text: 'TWO' }),
    )
    const term = await Terminal.start(runArgv(ws, model.baseURL), { cwd: ws, env: modelEnv() })
    const asked = await term.waitFor(/Allow edit_file\? \[y\/N\] $/m)
    expect(asked).toContain(
      'tools: list_files, read_file, grep, edit_file, write_file, shell; writes, edits and shell commands are asked about',
    )
    const shown = asked.replace(/file sha256 [0-9a-f]{12}\)/, 'file sha256 <digest>)')
    expect(shown).toContain(
      [
        '    ? approval asked for edit_file: changes hello.txt (3 lines now; file sha256 <digest>)',
        '        --- a/hello.txt',
        '        +++ b/hello.txt',
        '        @@ -1,3 +1,3 @@',
        '         one',
        '        -two',
        '        +TWO',
        '         three',
        '    ┌ Edit hello.txt  [edit]',
        '    │ arguments: {"path":"hello.txt","old_text":"two","new_text":"TWO"}',
        '    └ Allow edit_file? [y/N] ',
      ].join('\n'),
    )
    // The diff is printed once: the box under it does not repeat it.
    expect(asked.split('+TWO')).toHaveLength(2)
    await term.keys('y', 'Enter')
    const { code } = await term.exit()
    expect(code).toBe(0)
    expect(readFileSync(path.join(ws, 'hello.txt'), 'utf8')).toBe('one\nTWO\nthree\n')
    const replay = await tooltx(ws, 'replay', 'latest')
    expect(replay.stdout).toContain(
      '        -two\n        +TWO\n         three\n    ? approval for edit_file: allowed-once',
    )
  })
})

describe.skipIf(!hasTmux())('writes, conflicts and refused edits at a terminal (tmux)', () => {
  it('K2.15: a write shows a new file as all added lines and an overwrite as the diff against the old text', async () => {
    const ws = sampleWorkspace()
    writeFileSync(path.join(ws, 'old.txt'), 'keep\ndrop\n')
    const model = await modelCalling(
      call('call_new', 'write_file', { path: 'docs/new.md', content: '# New\nbody\n' }),
      call('call_old', 'write_file', { path: 'old.txt', content: 'keep\nadd\n' }),
    )
    const term = await Terminal.start(runArgv(ws, model.baseURL), { cwd: ws, env: modelEnv() })
    const first = await term.waitFor(/Allow write_file\? \[y\/N\] $/m)
    expect(first).toContain(
      [
        '    ? approval asked for write_file: creates docs/new.md (a new file, 2 lines)',
        '        --- /dev/null',
        '        +++ b/docs/new.md',
        '        @@ -0,0 +1,2 @@',
        '        +# New',
        '        +body',
        '    ┌ Write docs/new.md  [edit]',
      ].join('\n'),
    )
    await term.keys('y', 'Enter')
    const second = await term.waitFor(/Allow write_file\? \[y\/N\] y\n[\s\S]*Allow write_file\? \[y\/N\] $/m)
    expect(second.replace(/file sha256 [0-9a-f]{12}\)/, 'file sha256 <digest>)')).toContain(
      [
        '    ? approval asked for write_file: changes old.txt (2 lines now; file sha256 <digest>)',
        '        --- a/old.txt',
        '        +++ b/old.txt',
        '        @@ -1,2 +1,2 @@',
        '         keep',
        '        -drop',
        '        +add',
      ].join('\n'),
    )
    await term.keys('y', 'Enter')
    expect((await term.exit()).code).toBe(0)
    expect(readFileSync(path.join(ws, 'docs/new.md'), 'utf8')).toBe('# New\nbody\n')
    expect(readFileSync(path.join(ws, 'old.txt'), 'utf8')).toBe('keep\nadd\n')
  })

  it('K2.16: a file changed while its diff waits for approval is not overwritten: the call fails with CONFLICT', async () => {
    const ws = sampleWorkspace()
    const file = path.join(ws, 'hello.txt')
    writeFileSync(file, 'one\ntwo\n')
    const model = await modelCalling(
      call('call_edit', 'edit_file', { path: 'hello.txt', old_text: 'two', new_text: 'TWO' }),
      call('call_write', 'write_file', { path: 'fresh.txt', content: 'mine\n' }),
    )
    const term = await Terminal.start(runArgv(ws, model.baseURL), { cwd: ws, env: modelEnv() })
    await term.waitFor(/Allow edit_file\? \[y\/N\] $/m)
    // Someone edits the file after the diff was shown, keeping the text the edit replaces.
    writeFileSync(file, 'zero\none\ntwo\n')
    await term.keys('y', 'Enter')
    await term.waitFor(/Allow write_file\? \[y\/N\] $/m)
    // A file appears where the write was shown as creating one.
    writeFileSync(path.join(ws, 'fresh.txt'), 'theirs\n')
    await term.keys('y', 'Enter')
    const { code, screen } = await term.exit()
    expect(code).toBe(0)
    expect(screen).toContain('✗ edit_file failed (CONFLICT)')
    expect(screen).toContain('✗ write_file failed (CONFLICT)')
    expect(readFileSync(file, 'utf8')).toBe('zero\none\ntwo\n')
    expect(readFileSync(path.join(ws, 'fresh.txt'), 'utf8')).toBe('theirs\n')
    expect(toolMessage(model, 'call_edit')).toBe(
      'Error: "hello.txt" changed after the change was shown for approval, so nothing was written; ' +
        'read the file again and make the change against what it holds now',
    )
  })

  it('K1.10: an edit whose text is missing or found more than once asks nobody and says how many matches it found', async () => {
    const ws = sampleWorkspace()
    writeFileSync(path.join(ws, 'list.txt'), 'item\nitem\n')
    const model = await modelCalling(
      call('call_missing', 'edit_file', { path: 'list.txt', old_text: 'thing', new_text: 'x' }),
      call('call_twice', 'edit_file', { path: 'list.txt', old_text: 'item', new_text: 'x' }),
    )
    const term = await Terminal.start(runArgv(ws, model.baseURL), { cwd: ws, env: modelEnv() })
    const { code, screen } = await term.exit()
    expect(code).toBe(0)
    expect(screen).not.toContain('Allow edit_file?')
    expect(screen).toContain('✗ edit_file failed (NO_MATCH)')
    expect(screen).toContain('✗ edit_file failed (AMBIGUOUS_MATCH)')
    expect(toolMessage(model, 'call_missing')).toBe(
      'Error: found 0 matches of old_text in "list.txt"; read the file and copy the text exactly, whitespace included',
    )
    expect(toolMessage(model, 'call_twice')).toBe(
      'Error: found 2 matches of old_text in "list.txt"; include more of the surrounding lines so it matches once, or pass replace_all: true',
    )
    expect(readFileSync(path.join(ws, 'list.txt'), 'utf8')).toBe('item\nitem\n')
  })

  it('K1.9, K1.11: each new tool is denied a secrets file and a path outside the workspace before anyone is asked', async () => {
    const ws = sampleWorkspace()
    writeFileSync(path.join(ws, '.env'), 'TOKEN=secret\n')
    const calls = [
      call('c1', 'write_file', { path: '.env', content: 'TOKEN=mine' }),
      call('c2', 'write_file', { path: '../outside.txt', content: 'x' }),
      call('c3', 'edit_file', { path: 'config/.env.local', old_text: 'a', new_text: 'b' }),
      call('c4', 'edit_file', { path: '/etc/hostname', old_text: 'a', new_text: 'b' }),
      call('c5', 'shell', { command: 'cat .env' }),
      call('c6', 'shell', { command: 'cat ../outside.txt 2>/dev/null' }),
      call('c7', 'shell', { command: 'FILE=/etc/passwd node -e 1' }),
    ]
    const model = await modelCalling(...calls)
    const term = await Terminal.start(runArgv(ws, model.baseURL), { cwd: ws, env: modelEnv() })
    const { code, screen } = await term.exit()
    expect(code).toBe(0)
    expect(screen).not.toContain('Allow ')
    expect(screen.match(/failed \(DENIED\)/g)).toHaveLength(7)
    const said = (id: string) => toolMessage(model, id)
    expect(said('c1')).toBe('Error: tool "write_file" denied by guard: ".env" holds secrets')
    expect(said('c2')).toBe(
      'Error: tool "write_file" denied by guard: "../outside.txt" is outside the workspace; name paths inside it',
    )
    expect(said('c3')).toContain('"config/.env.local" holds secrets')
    expect(said('c4')).toContain('"/etc/hostname" is outside the workspace')
    expect(said('c5')).toBe('Error: tool "shell" denied by guard: ".env" holds secrets')
    expect(said('c6')).toContain('"../outside.txt" is outside the workspace')
    expect(said('c7')).toContain('"/etc/passwd" is outside the workspace')
    expect(readFileSync(path.join(ws, '.env'), 'utf8')).toBe('TOKEN=secret\n')
    expect(existsSync(path.join(ws, '..', 'outside.txt'))).toBe(false)
  })
})

describe.skipIf(!hasTmux())('shell commands at a terminal (tmux)', () => {
  it('K2.18: a shell command is asked about, showing the command, and runs once allowed', async () => {
    const ws = sampleWorkspace()
    const model = await modelCalling(call('call_sh', 'shell', { command: 'echo hello from $0' }))
    const term = await Terminal.start(runArgv(ws, model.baseURL), { cwd: ws, env: modelEnv() })
    const asked = await term.waitFor(/Allow shell\? \[y\/N\] $/m)
    expect(asked).toContain(
      '    ? approval asked for shell: runs a shell command in the workspace, with your permissions',
    )
    expect(asked).toContain('    ┌ $ echo hello from $0')
    await term.keys('y', 'Enter')
    const { code, screen } = await term.exit()
    expect(code).toBe(0)
    expect(screen).toContain('    ✓ shell')
    expect(toolMessage(model, 'call_sh')).toBe('exit code 0\nhello from /bin/sh')
  })

  it('K2.19: --allow-shell runs a matching plain command unasked, and still asks for one that chains another', async () => {
    const ws = sampleWorkspace()
    const model = await modelCalling(
      call('call_ls', 'shell', { command: 'ls scripts' }),
      call('call_chain', 'shell', { command: 'ls scripts; touch pwned' }),
    )
    const argv = runArgv(ws, model.baseURL, '--allow-shell', 'ls')
    const term = await Terminal.start(argv, { cwd: ws, env: modelEnv() })
    const asked = await term.waitFor(/Allow shell\? \[y\/N\] $/m)
    expect(asked).toContain('writes, edits and shell commands are asked about (commands allowed: "ls")')
    expect(asked).toContain('    ┌ $ ls scripts; touch pwned')
    expect(asked.match(/Allow shell\?/g)).toHaveLength(1)
    await term.keys('n', 'Enter')
    const { code } = await term.exit()
    expect(code).toBe(0)
    expect(toolMessage(model, 'call_ls')).toBe('exit code 0\nlint.mjs\nslow-check.mjs')
    expect(toolMessage(model, 'call_chain')).toBe('Error: the user rejected tool "shell"')
    expect(existsSync(path.join(ws, 'pwned'))).toBe(false)
  })

  it('K2.17: a command past its timeout is killed with everything it started; long output is capped, saying how much', async () => {
    const ws = sampleWorkspace()
    const model = await modelCalling(
      call('call_slow', 'shell', {
        command: 'sleep 31.415 & echo started; sleep 31.416',
        timeout_seconds: 1,
      }),
      call('call_loud', 'shell', { command: "node -e \"process.stdout.write('x'.repeat(100000) + 'END')\"" }),
    )
    const term = await Terminal.start(runArgv(ws, model.baseURL, '--yes'), { cwd: ws, env: modelEnv() })
    const { code, screen } = await term.exit()
    expect(code).toBe(0)
    expect(screen).toContain('✗ shell failed (SHELL_TIMEOUT)')
    expect(toolMessage(model, 'call_slow')).toBe(
      'Error: the command ran longer than 1 s, so it and every process it started were killed; ' +
        'pass a larger timeout_seconds if it needs longer\noutput so far:\nstarted',
    )
    expect(await survivors('31.41')).toEqual([])
    const loud = toolMessage(model, 'call_loud')!
    expect(loud).toContain('\n[… 70,003 characters of output not kept …]\n')
    expect(loud.endsWith('xxxEND')).toBe(true)
    expect(loud.length).toBeLessThan(30_100)
  })

  it.each([
    ['Ctrl-C', 130],
    ['SIGTERM', 143],
  ] as const)(
    'K2.17: %s while a command runs kills its whole process group and ends the run with %i',
    async (how, status) => {
      const ws = sampleWorkspace()
      const marker = how === 'Ctrl-C' ? '27.18' : '27.19'
      const model = await modelCalling(
        call('call_bg', 'shell', { command: `sleep ${marker}1 & sleep ${marker}2` }),
      )
      const term = await Terminal.start(runArgv(ws, model.baseURL, '--yes'), { cwd: ws, env: modelEnv() })
      await term.waitFor(/▶ \$ sleep/)
      for (let i = 0; i < 50 && processesMentioning(`${marker}2`).length === 0; i++)
        await new Promise((r) => setTimeout(r, 100))
      // The shell and its background sleep both run (the shell's command line names it too).
      expect(processesMentioning(`${marker}1`).length).toBeGreaterThan(0)
      if (how === 'Ctrl-C') await term.keys('C-c')
      else process.kill(tooltxPid(ws), 'SIGTERM')
      const { code, screen } = await term.exit()
      expect(code).toBe(status)
      expect(screen).toMatch(/✗ shell failed \((SHELL_STOPPED|ABORTED)\)/)
      expect(screen).toContain('── turn 1 aborted ──')
      expect(await survivors(marker)).toEqual([])
    },
  )
})
