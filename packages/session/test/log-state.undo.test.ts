import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { NewSessionEvent } from '../src/index.js'
import { LogState } from '../src/log/log-state.js'
import { UndoLog } from '../src/log/undo-log.js'
import { scriptTurns, seededRandom } from './log-script.js'

const json = (x: unknown): string => JSON.stringify(x) ?? 'undefined'

/**
 * One turn suspended on a durable ask and resumed (F2.3, F2.7): effects, a second ask decided
 * while the durable one waits, so a failing batch can cross every kind of state change.
 */
function durableTurn(turn: number): NewSessionEvent[] {
  const at = { turn, step: 1 }
  const call = (id: string) => ({ type: 'tool-call', id, name: 'pay', arguments: '{}' })
  const asked = {
    ...at,
    name: 'pay',
    argumentsDigest: 'd',
    durable: true,
    expiresAt: '2030-01-01T00:00:00.000Z',
  }
  return [
    { type: 'turn/start', data: { turn } },
    { type: 'step/start', data: at },
    { type: 'assistant/message', data: { ...at, content: [call('a'), call('b'), call('c')] } },
    { type: 'tool/call', data: { ...at, callId: 'a', name: 'pay', arguments: '{}' } },
    { type: 'tool/call', data: { ...at, callId: 'b', name: 'pay', arguments: '{}' } },
    { type: 'tool/effect', data: { ...at, callId: 'a', name: 'pay', receipt: { n: 1 } } },
    { type: 'tool/effect', data: { ...at, callId: 'a', name: 'pay', receipt: { n: 2 } } },
    { type: 'approval/asked', data: { ...at, callId: 'a', name: 'pay' } },
    { type: 'approval/asked', data: { ...asked, callId: 'b' } },
    { type: 'approval/decided', data: { ...at, callId: 'a', name: 'pay', outcome: 'allowed-once' } },
    {
      type: 'approval/decided',
      data: {
        ...at,
        callId: 'b',
        name: 'pay',
        outcome: 'allowed-once',
        argumentsDigest: 'd',
        by: 'ann',
        decidedAt: '2029-01-01T00:00:00.000Z',
      },
    },
    { type: 'turn/resumed', data: at },
    { type: 'tool/result', data: { ...at, callId: 'a', name: 'pay', content: [], isError: false } },
    { type: 'tool/result', data: { ...at, callId: 'b', name: 'pay', content: [], isError: false } },
    { type: 'tool/call', data: { ...at, callId: 'c', name: 'pay', arguments: '{}' } },
    { type: 'tool/result', data: { ...at, callId: 'c', name: 'pay', content: [], isError: false } },
    { type: 'step/end', data: at },
    { type: 'turn/end', data: { turn, reason: 'completed' } },
  ] as NewSessionEvent[]
}

/** Everything the checks and the repair read from `state`, Map and Set order included. */
const observed = (state: LogState): string => json([state.toJSON(), state.unanswered(), state.waiting()])

describe('L1.4 a failed batch leaves the log state as it was', () => {
  it('L1.4: for any valid log and any batch refused part-way or failing to write, rolling back the undo log restores the state exactly, and the log goes on as if the batch never was (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2 ** 31 - 1 }),
        fc.nat(),
        fc.integer({ min: 0, max: 14 }),
        fc.boolean(),
        (seed, at, size, refuse) => {
          const script = [...scriptTurns(2, seededRandom(seed)), ...durableTurn(3)]
          const cut = at % (script.length + 1)
          const state = new LogState()
          for (const event of script.slice(0, cut)) state.apply(event)
          const before = observed(state)

          // The next `size` events, each checked and applied, then either a write that fails or
          // (`refuse`) an event of the script the state now refuses: either way, a rollback.
          const undo = new UndoLog()
          for (const event of script.slice(cut, cut + size)) {
            expect(state.check(event)).toBeUndefined()
            state.apply(event, undo)
          }
          if (refuse) expect(script.some((event) => state.check(event) !== undefined)).toBe(true)
          undo.rollback()
          expect(observed(state)).toBe(before)

          for (const event of script.slice(cut)) {
            expect(state.check(event)).toBeUndefined()
            state.apply(event)
          }
          const replayed = new LogState()
          for (const event of script) replayed.apply(event)
          expect(observed(state)).toBe(observed(replayed))
        },
      ),
      { numRuns: 300 },
    )
  })
})
