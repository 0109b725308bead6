/**
 * K2.28–K2.30 where a person sees them, in a real terminal through tmux: multi-line text stays
 * indented, the approval box does not repeat the card above it, and the demo's closing reply
 * says what happened to a rejected note.
 */
import { existsSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { BIN, cleanEnv, sampleWorkspace, scratch } from './cli-harness.js'
import { fakeModel, slowModel } from './fake-model.js'
import { hasTmux, Terminal } from './terminal.js'

const modelEnv = () => cleanEnv({ OPENAI_API_KEY: 'test-key' })

/** The screen's lines from the one matching `first` through the one matching `last`. */
function between(screen: string, first: RegExp, last: RegExp): string[] {
  const lines = screen.split('\n')
  const from = lines.findIndex((line) => first.test(line))
  const to = lines.findIndex((line, i) => i > from && last.test(line))
  return lines.slice(from, to + 1)
}

describe.skipIf(!hasTmux())('the CLI polished, at a terminal (tmux)', () => {
  it('K2.28: a streamed reply of several lines keeps its later lines indented under the first, shown once', async () => {
    const ws = sampleWorkspace()
    const baseURL = await slowModel(['First line\nsecond ', 'line\nthird line'], 300, 300)
    const argv = [process.execPath, BIN, 'run', 'say three lines', '--workspace', ws, '--base-url', baseURL]
    const term = await Terminal.start(argv, { cwd: ws, env: modelEnv() })
    const { code, screen } = await term.exit()
    expect(code).toBe(0)
    expect(between(screen, /assistant: /, /── turn 1 completed ──/)).toEqual([
      '    assistant: First line',
      '      second line',
      '      third line',
      '── turn 1 completed ──',
    ])
    expect(screen.split('assistant:')).toHaveLength(2)
  })

  it('K2.29: the approval box names the call and shows its arguments, not the diff the card above shows', async () => {
    const ws = sampleWorkspace()
    const call = {
      id: 'call_note',
      name: 'write_file',
      arguments: JSON.stringify({ path: 'notes/plan.md', content: '# Plan\n\nship it' }),
    }
    const model = await fakeModel([{ toolCalls: [call] }, { text: 'Saved.' }])
    const argv = [process.execPath, BIN, 'run', 'plan', '--workspace', ws, '--base-url', model.baseURL]
    const term = await Terminal.start(argv, { cwd: ws, env: modelEnv() })
    const asked = await term.waitFor(/Allow write_file\? \[y\/N\] $/m)
    const box = between(asked, /^ {4}┌ /, /^ {4}└ Allow write_file/)
    expect(box).toEqual([
      '    ┌ Write notes/plan.md  [edit]',
      '    │ arguments: {"path":"notes/plan.md","content":"# Plan\\n\\nship it"}',
      '    └ Allow write_file? [y/N] ',
    ])
    // The diff is on screen once: under the ask, above the box.
    expect(asked.split('+ship it')).toHaveLength(2)
    await term.keys('y', 'Enter')
    expect((await term.exit()).code).toBe(0)
  })

  it('K2.29, K2.30: the demo shows its note once, and after a rejection its closing reply says the note was not saved', async () => {
    const cwd = scratch()
    const term = await Terminal.start([process.execPath, BIN, 'demo', '--fast'], { cwd, env: cleanEnv() })
    const asked = await term.waitFor(/Allow write_note\? \[y\/N\] $/m, 60_000)
    expect(between(asked, /^ {4}┌ /, /^ {4}└ /).filter((line) => line.startsWith('    │ +'))).toEqual([])
    expect(asked.split('# Open TODOs').length - 1).toBe(2) // the card's diff, and the arguments
    await term.keys('n', 'Enter')
    const { code, screen } = await term.exit(60_000)
    expect(code).toBe(0)
    expect(screen).toContain('    ? approval for write_note: rejected')
    expect(screen).toMatch(
      /The note was not saved, since its write was not approved; nothing in notes\/ changed\./,
    )
    expect(screen).not.toContain('The summary is in notes/todo-summary.md')
    expect(existsSync(path.join(cwd, '.tooltx/demo-workspace/notes/todo-summary.md'))).toBe(false)
  }, 90_000)
})
