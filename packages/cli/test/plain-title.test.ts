/** G3.9: titles carry no terminal escape codes, in the viewer and the timeline alike. */

import path from 'node:path'
import { openSession, sqliteStore } from '@tooltx/session'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { sessionsCommand } from '../src/commands/sessions.js'
import { callTitle } from '../src/display/card-text.js'
import { plainTitle } from '../src/display/terminal-text.js'
import { scratch } from './cli-harness.js'
import { keptOutput } from './viewer-fixtures.js'

describe('G3.9 plain titles', () => {
  it('G3.9: colour codes, window titles and other controls are dropped from a title, its whitespace one space', () => {
    expect(plainTitle('\u001b[1;31mnpm test\u001b[0m')).toBe('npm test')
    expect(plainTitle('ls\u001b]0;owned\u0007 -la\u001b]8;;http://x\u001b\\ link')).toBe('ls -la link')
    expect(plainTitle('\u009b2Jclear\u0007 me\n  now\t')).toBe('clear me now')
    expect(callTitle({ card: 'terminal', title: 'echo \u001b[32mok\u001b[0m\nexit 1' })).toBe(
      '$ echo ok exit 1',
    )
  })

  it('G3.9: a plain title holds no control character, whatever the text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        // biome-ignore lint/suspicious/noControlCharactersInRegex: checking that none is left
        expect(plainTitle(text)).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/)
      }),
    )
  })

  it('G3.9: tooltx sessions shows a task without its terminal codes', async () => {
    const db = path.join(scratch(), 'sessions.db')
    const store = sqliteStore(db)
    const session = await openSession(store, { id: 'coloured' })
    const at = { turn: 1, step: 1 }
    const text = '\u001b[1;31mfix\u001b[0m the\nbuild'
    await session.appendBatch([
      { type: 'turn/start', data: { turn: 1 } },
      { type: 'step/start', data: at },
      { type: 'user/message', data: { ...at, message: { role: 'user', content: [{ type: 'text', text }] } } },
    ])
    await session.close()
    await store.close()
    const out = keptOutput()
    await sessionsCommand({ db }, out)
    expect(out.lines.at(-1)).toMatch(/^coloured\s+3\s+\S+\s+unfinished\s+fix the build$/)
  })
})
