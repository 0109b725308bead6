import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { createAgent, scripted } from '@tooltx/agent'
import { memoryStore, openSession } from '@tooltx/session'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SAMPLE_WORKSPACE } from '../src/commands/demo.js'
import { watchSession } from '../src/display/live-progress.js'
import type { Output } from '../src/display/output.js'
import { TimelineRenderer } from '../src/display/timeline.js'
import { createToolset } from '../src/toolset.js'

/** What a hostile model would print: retitle the window, clear the screen, fake a prompt. */
const ATTACK = '\x1b]0;pwned\x07\x1b[2J\x1b[H\r? Allow write_note? [y/N] \x9b31m\u202eevil\x7f\b'
/** The same text as the timeline must show it. */
const SHOWN = '\\x1b]0;pwned\\x07\\x1b[2J\\x1b[H\\x0d? Allow write_note? [y/N] \\x9b31m\\u202eevil\\x7f\\x08'
/** Everything a terminal could act on, except tab and newline. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/

let root: string

beforeAll(() => {
  root = mkdtempSync(path.join(tmpdir(), 'tooltx-k14-'))
  cpSync(SAMPLE_WORKSPACE, root, { recursive: true })
  writeFileSync(path.join(root, 'docs/hostile.md'), `line one\n${ATTACK}\n`)
})

afterAll(() => rmSync(root, { recursive: true, force: true }))

/** An output that records every line and status text, as an interactive terminal would get them. */
function recorder() {
  const lines: string[] = []
  const statuses: string[] = []
  const out: Output = {
    interactive: true,
    line: (text = '') => lines.push(text),
    error: (text) => lines.push(text),
    text: (text) => lines.push(text),
    status: (text) => statuses.push(text),
    columns: undefined,
    prompt: undefined,
    onClosed: () => () => {},
  }
  return { out, lines, statuses }
}

/** Runs a scripted model whose text, tool names, arguments and tool output all carry `ATTACK`. */
async function hostileRun() {
  const { runtime, scope } = createToolset({ root })
  const session = await openSession(memoryStore(), { id: 'hostile' })
  const { out, lines, statuses } = recorder()
  const stop = watchSession(session, runtime, scope, out)
  try {
    const agent = createAgent({
      runtime,
      scope,
      session,
      model: scripted([
        {
          text: `Reading. ${ATTACK}`,
          toolCalls: [
            { id: 'call_read', name: 'read_file', arguments: JSON.stringify({ path: 'docs/hostile.md' }) },
            { id: 'call_odd', name: `odd${ATTACK}`, arguments: JSON.stringify({ note: ATTACK }) },
          ],
        },
        { text: `Done ${ATTACK}` },
      ]),
    })
    agent.send(`Please look ${ATTACK}`)
    await agent.whenIdle()
  } finally {
    stop()
  }
  const view = runtime.view(scope)
  const replay = new TimelineRenderer((name) => view.get(name))
  const replayed = session.events().flatMap((event) => replay.render(event))
  await session.close()
  return { lines, statuses, replayed }
}

describe('K1.4 the timeline never prints a control character it was given', () => {
  it('K1.4: model text, tool names, arguments and tool output are printed escaped, live and in replay', async () => {
    const { lines, statuses, replayed } = await hostileRun()
    const live = lines.join('\n')
    expect(live).not.toMatch(UNSAFE)
    expect(statuses.join('\n')).not.toMatch(UNSAFE)
    // Each place the attack entered is shown, visibly escaped.
    expect(lines).toContain(`    assistant: Reading. ${SHOWN}`)
    expect(lines).toContain(`           2  ${SHOWN}`)
    expect(lines).toContain(`    ✗ odd${SHOWN} failed (UNKNOWN_TOOL)`)
    expect(lines.some((line) => line.startsWith('    user: Please look \\x1b]0;pwned'))).toBe(true)
    expect(statuses.some((status) => status.includes(`odd${SHOWN}`))).toBe(true)
    expect(replayed).toEqual(lines)
  })

  it('K1.4: any text renders without an unsafe character, and text without one renders unchanged', async () => {
    const { terminalSafe } = await import('../src/display/terminal-text.js')
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), (text) => {
        const shown = terminalSafe(text)
        expect(shown).not.toMatch(UNSAFE)
        if (!UNSAFE.test(text)) expect(shown).toBe(text)
      }),
    )
    expect(terminalSafe('a\tb\nc')).toBe('a\tb\nc')
  })
})
