import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { sqliteReader } from '@tooltx/session'
import fc from 'fast-check'
import { describe, expect, it, onTestFinished } from 'vitest'
import { recordedLookup } from '../src/display/presenters.js'
import { type DisplayEntry, displaySession, SessionDisplay } from '../src/display/session-display.js'
import { cliDefinitions, renderSession } from '../src/session-timeline.js'
import { highlight } from '../web/src/highlight.js'
import { lineDiff } from '../web/src/line-diff.js'
import { type CardRow, filterRows, nestedFailures, SessionRows } from '../web/src/rows.js'
import { codeModeTurn, demoSession, numbered } from './viewer-fixtures.js'

function scratchDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'tooltx-view-'))
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

const noDefinitions = () => undefined

describe('G1 one display model', () => {
  it('G1.1: the timeline prints the display entries: every call title, tool and failure code of the demo', async () => {
    const { db, id } = await demoSession(scratchDir())
    const reader = sqliteReader(db)!
    const events = (await reader.read(id))!
    await reader.close()
    const entries = displaySession(events, recordedLookup(events, cliDefinitions()))
    const lines = renderSession(events)
    const calls = entries.filter((e) => e.kind === 'call')
    expect(calls.map((e) => e.title)).toEqual([
      'List .  [search]',
      'Search for /TODO/  [search]',
      'Read README.md  [read]',
      'Read .env  [read]',
      '$ Run lint',
      '$ Run slow-check',
      'Write notes/todo-summary.md',
    ])
    expect(lines.filter((l) => l.startsWith('    ▶ ')).map((l) => l.slice(6))).toEqual(
      calls.map((e) => e.title),
    )
    const failures = entries.flatMap((e) => (e.kind === 'result' && e.isError ? [`${e.name} ${e.code}`] : []))
    expect(failures).toEqual(['read_file DENIED', 'run_check TOOL_TIMEOUT'])
    expect(lines.filter((l) => l.startsWith('    ✗ '))).toEqual([
      '    ✗ read_file failed (DENIED)',
      '    ✗ run_check failed (TOOL_TIMEOUT)',
    ])
    const approvals = entries.filter((e) => e.kind === 'approval')
    expect(approvals.map((e) => (e.kind === 'approval' ? [e.phase, e.outcome ?? e.reason] : []))).toEqual([
      ['asked', 'writes a file in the workspace'],
      ['decided', 'allowed-once'],
    ])
    expect(JSON.parse(JSON.stringify(entries))).toEqual(entries)
  }, 120_000)

  it('G1.1: a Code Mode call carries its program; sub-calls and their codes are entries; contexts name their source', () => {
    const events = numbered([
      ...codeModeTurn(),
      {
        type: 'user/message',
        data: {
          turn: 1,
          step: 1,
          message: { role: 'user', content: [{ type: 'text', text: 'note' }], source: { kind: 'reminder' } },
        },
      },
    ])
    const entries = displaySession(events, noDefinitions)
    const call = entries.find((e) => e.kind === 'call')
    expect(call).toMatchObject({ name: 'run_code', program: expect.stringContaining('tools.read_file') })
    const subs = entries.flatMap((e) =>
      e.kind === 'sub-call'
        ? [`${e.parentCallId}>${e.subCallId}`]
        : e.kind === 'sub-result'
          ? [`${e.subCallId}:${e.code ?? 'ok'}`]
          : [],
    )
    expect(subs).toEqual([
      'code-1>code-1.1',
      'code-1.1>code-1.1.1',
      'code-1.1.1:ok',
      'code-1.1:ok',
      'code-1>code-1.2',
      'code-1.2:NOT_FOUND',
    ])
    expect(entries.at(-1)).toMatchObject({
      kind: 'message',
      role: 'context',
      source: 'reminder',
      text: 'note',
    })
    expect(renderSession(events).at(-1)).toBe('    context from reminder: note')
  })

  it('G1.2: a result has a duration only when the call and the result were both seen arriving', () => {
    const events = numbered(codeModeTurn())
    const call = events.find((e) => e.type === 'tool/call')!
    const result = events.find((e) => e.type === 'tool/result')!
    const live = new SessionDisplay(noDefinitions)
    live.add(call, 1000)
    expect(live.add(result, 1250)).toMatchObject({ kind: 'result', durationMs: 250 })
    const replayed = new SessionDisplay(noDefinitions)
    replayed.add(call)
    expect(replayed.add(result, 1250)).not.toHaveProperty('durationMs')
  })
})

describe('G3 the session page rows', () => {
  const rowsOf = (entries: readonly DisplayEntry[]) => {
    const rows = new SessionRows()
    rows.add(entries)
    return rows.rows
  }

  it('G3.2: a call, its result, approvals and nested sub-calls form one card; sub-calls nest as a tree', () => {
    const rows = rowsOf(displaySession(numbered(codeModeTurn()), noDefinitions))
    const cards = rows.filter((r): r is CardRow => r.type === 'card')
    expect(cards).toHaveLength(1)
    const card = cards[0]!
    expect(card.result?.name).toBe('run_code')
    expect(
      card.subCalls.map((n) => [
        n.call.subCallId,
        n.result?.code ?? 'ok',
        n.children.map((c) => c.call.name),
      ]),
    ).toEqual([
      ['code-1.1', 'ok', ['grep']],
      ['code-1.2', 'NOT_FOUND', []],
    ])
    expect(card.seqs).toEqual([5, 6, 7, 8, 9, 10, 11, 12])
    expect(rows.map((r) => r.type)).toEqual(['turn', 'step', 'message', 'card', 'turn-end'])
  })

  it('G3.3: failures only keeps the failed cards (a failed sub-call counts) under their turn and step headings; a tool and a turn narrow further', () => {
    const events = numbered([...codeModeTurn(1), ...codeModeTurn(2)])
    const ok = events.map((e) =>
      e.type === 'tool/code-dispatch' && e.data.turn === 2
        ? { ...e, data: { ...e.data, isError: false } }
        : e,
    ) as typeof events
    const rows = rowsOf(displaySession(ok, noDefinitions))
    const keys = (filter: Parameters<typeof filterRows>[1]) =>
      filterRows(rows, filter).map((r) => `${r.type}${r.turn}`)
    expect(keys({ failuresOnly: true, tool: undefined, turn: undefined })).toEqual([
      'turn1',
      'step1',
      'card1',
    ])
    expect(keys({ failuresOnly: false, tool: 'grep', turn: undefined })).toEqual([
      'turn1',
      'step1',
      'card1',
      'turn2',
      'step2',
      'card2',
    ])
    expect(keys({ failuresOnly: false, tool: 'read_file', turn: 2 })).toEqual(['turn2', 'step2', 'card2'])
    const cards = rows.filter((row): row is CardRow => row.type === 'card')
    expect(cards.map(nestedFailures)).toEqual([1, 0])
    expect(keys({ failuresOnly: false, tool: undefined, turn: 2 })).toEqual([
      'turn2',
      'step2',
      'message2',
      'card2',
      'turn-end2',
    ])
    expect(keys({ failuresOnly: false, tool: 'write_note', turn: undefined })).toEqual([])
  })

  it('G3.2: a line diff keeps every old line in order and every new line in order', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('a', 'b', 'c', '')),
        fc.array(fc.constantFrom('a', 'b', 'c', '')),
        (a, b) => {
          const lines = lineDiff(a.join('\n'), b.join('\n'))
          expect(lines.filter((l) => l.op !== '+').map((l) => l.text)).toEqual(a.join('\n').split('\n'))
          expect(lines.filter((l) => l.op !== '-').map((l) => l.text)).toEqual(b.join('\n').split('\n'))
        },
      ),
    )
    expect(lineDiff('x\ny\nz', 'x\nY\nz').map((l) => `${l.op}${l.text}`)).toEqual([' x', '+Y', '-y', ' z'])
    expect(lineDiff(null, 'new\nfile').map((l) => l.op)).toEqual(['+', '+'])
  })

  it('G3.2: the highlighted program is exactly the program, with keywords, strings and comments marked', () => {
    fc.assert(
      fc.property(fc.string(), (code) => {
        expect(
          highlight(code)
            .map((t) => t.text)
            .join(''),
        ).toBe(code)
      }),
    )
    expect(highlight("const a = 'x' // c").filter((t) => t.kind !== 'plain')).toEqual([
      { text: 'const', kind: 'keyword' },
      { text: "'x'", kind: 'string' },
      { text: '// c', kind: 'comment' },
    ])
  })
})
