import path from 'node:path'
import { createAgent, scripted } from '@tooltx/agent'
import { createToolRuntime, defineTool } from '@tooltx/core'
import { openSession, sqliteStore } from '@tooltx/session'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  ARGUMENT_EDGE_CHARS,
  argumentLines,
  WHOLE_ARGUMENT_CHARS,
} from '../src/display/approval-arguments.js'
import { scratch, tooltx } from './cli-harness.js'

const DIGEST = 'd'.repeat(64)

/** Raw arguments whose dangerous part a model pushed behind `pad` spaces. */
const padded = (pad: number) =>
  JSON.stringify({ memo: `pay 5 to alice${' '.repeat(pad)}and 5000 to mallory` })

describe('K5.6 how an approval shows its arguments', () => {
  it('K5.6: arguments up to the limit, or with no way to see them whole, are shown whole on one line', () => {
    const short = padded(WHOLE_ARGUMENT_CHARS - 60)
    expect([...short].length).toBeLessThanOrEqual(WHOLE_ARGUMENT_CHARS)
    expect(argumentLines(short, { digest: DIGEST, whole: 'run x' })).toEqual([`arguments: ${short}`])
    const long = padded(50_000)
    expect(argumentLines(long, { digest: DIGEST })).toEqual([`arguments: ${long}`])
  })

  it('K5.6: longer arguments show their start and end, how much is hidden between them, the digest and how to see them whole', () => {
    const long = padded(10_000)
    const lines = argumentLines(long, { digest: DIGEST, whole: 'run `tooltx approve s c`' })
    const hidden = long.length - 2 * ARGUMENT_EDGE_CHARS
    expect(lines).toEqual([
      `arguments (${long.length.toLocaleString('en-US')} characters; the ${hidden.toLocaleString('en-US')} in the middle are not shown here):`,
      `  ${long.slice(0, ARGUMENT_EDGE_CHARS)}`,
      `  [… ${hidden.toLocaleString('en-US')} characters not shown …]`,
      `  ${long.slice(-ARGUMENT_EDGE_CHARS)}`,
      `to see these arguments (digest ${DIGEST}) whole, run \`tooltx approve s c\``,
    ])
    // Padding cannot push the end out of view: the tail holds the dangerous part.
    expect(lines[3]).toContain('and 5000 to mallory"}')
  })

  it('K5.6: the shown parts are exactly the start and the end, never a split character (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', minLength: 1_500, maxLength: 3_000 }), (text) => {
        const chars = [...text]
        const lines = argumentLines(text, { digest: DIGEST, whole: 'ask' })
        if (chars.length <= WHOLE_ARGUMENT_CHARS) {
          expect(lines).toEqual([`arguments: ${text}`])
          return
        }
        expect(lines[1]).toBe(`  ${chars.slice(0, ARGUMENT_EDGE_CHARS).join('')}`)
        expect(lines[3]).toBe(`  ${chars.slice(-ARGUMENT_EDGE_CHARS).join('')}`)
        expect(lines[2]).toContain(
          `${(chars.length - 2 * ARGUMENT_EDGE_CHARS).toLocaleString('en-US')} characters`,
        )
      }),
      { numRuns: 50 },
    )
  })

  it('K5.2, K5.6, K5.8: tooltx approvals shows padded arguments by their start and end; approve prints them whole', async () => {
    const cwd = scratch()
    const db = path.join(cwd, 'sessions.db')
    const runtime = createToolRuntime()
    const scope = runtime.scope()
    scope.register(
      defineTool({
        name: 'pay',
        description: 'Pay someone.',
        effect: 'write',
        parameters: { memo: { type: 'string', required: true } },
        execute: async () => 'paid',
      }),
    )
    runtime.onPreExecute(async (exec, next) =>
      exec.name === 'pay' ? { kind: 'ask', reason: 'moves money' } : next(),
    )
    const raw = padded(6_000)
    const store = sqliteStore(db)
    const session = await openSession(store, { id: 'payments' })
    const agent = createAgent({
      runtime,
      scope,
      session,
      model: scripted([{ toolCalls: [{ id: 'call_pay', name: 'pay', arguments: raw }] }]),
      approvals: 'durable',
    })
    await agent.send('pay alice')
    await session.close()
    await store.close()

    const listed = await tooltx(cwd, 'approvals', '--db', db)
    expect(listed.code).toBe(0)
    const lines = listed.stdout.split('\n')
    const at = lines.findIndex((line) => line.startsWith('    arguments ('))
    expect(lines[at]).toBe(
      `    arguments (${raw.length.toLocaleString('en-US')} characters; the ${(raw.length - 1_600).toLocaleString('en-US')} in the middle are not shown here):`,
    )
    expect(lines[at + 1]).toBe(`      ${raw.slice(0, 800)}`)
    expect(lines[at + 3]).toBe(`      ${raw.slice(-800)}`)
    expect(lines[at + 3]).toContain('and 5000 to mallory')
    const digest = /^ {4}digest: ([0-9a-f]{64})$/m.exec(listed.stdout)?.[1]
    expect(lines[at + 4]).toBe(
      `    to see these arguments (digest ${digest}) whole, run npx tooltx approve payments call_pay --db ${db}: it prints them whole and records nothing unless you confirm`,
    )
    const shown = await tooltx(cwd, 'approve', 'payments', 'call_pay', '--db', db)
    expect(shown.code).toBe(2)
    expect(shown.stdout.split('\n').slice(1, 4)).toEqual([
      '    reason: moves money',
      `    arguments: ${raw}`,
      `    digest: ${digest}`,
    ])
  }, 60_000)
})
