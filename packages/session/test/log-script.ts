/**
 * Valid session event sequences for tests: what an agent loop could append, driven by a
 * random source so property tests and the crash fixture explore many shapes of turns.
 */
import type { ModelMessage } from '@tooltx/core'
import type { NewSessionEvent } from '../src/index.js'

/** A seeded PRNG (mulberry32) returning floats in [0, 1). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const pick = <T>(rand: () => number, items: readonly T[]): T => items[Math.floor(rand() * items.length)]!

/** Every event of one complete turn `turn`: steps, messages, calls with approvals, dispatches, results. */
export function scriptTurn(turn: number, rand: () => number): NewSessionEvent[] {
  const out: NewSessionEvent[] = [{ type: 'turn/start', data: { turn } }]
  const steps = 1 + Math.floor(rand() * 3)
  for (let step = 1; step <= steps; step++) {
    out.push({ type: 'step/start', data: { turn, step } })
    const users = Math.floor(rand() * 3)
    for (let u = 0; u < users; u++) {
      const message = {
        role: 'user' as const,
        content: [{ type: 'text', text: `hi ${turn}.${step}.${u} ✓` }],
      }
      out.push({
        type: 'user/message',
        data: { turn, step, message: rand() < 0.5 ? message : { ...message, source: { kind: 'user' } } },
      })
    }
    const calls = step === steps ? 0 : Math.floor(rand() * 4)
    const ids = Array.from({ length: calls }, (_, k) => `call_${turn}_${step}_${k}`)
    out.push({
      type: 'assistant/message',
      data: {
        turn,
        step,
        content: [
          ...(rand() < 0.7 ? [{ type: 'text' as const, text: `thinking about "${turn}"\n` }] : []),
          ...ids.map((id) => ({
            type: 'tool-call' as const,
            id,
            name: pick(rand, ['read', 'run_code', 'bash']),
            arguments: pick(rand, ['', '{"path":"/x"}', '{bad json']),
          })),
        ],
      },
    })
    for (const callId of ids) {
      const name = 'read'
      if (rand() < 0.3) {
        out.push({
          type: 'approval/asked',
          data: { turn, step, callId, name, reason: 'writes', argumentsDigest: 'ab12' },
        })
        out.push({
          type: 'approval/decided',
          data: {
            turn,
            step,
            callId,
            name,
            outcome: pick(rand, ['allowed-once', 'rejected'] as const),
            argumentsDigest: 'ab12',
          },
        })
      }
      out.push({ type: 'tool/call', data: { turn, step, callId, name, arguments: '{"path":"/x"}' } })
      if (rand() < 0.3) {
        const sub = { rootCallId: callId, parentCallId: callId, subCallId: `${callId}.s1`, name: 'read' }
        out.push({
          type: 'tool/code-dispatch-start',
          data: { turn, step, ...sub, arguments: { path: '/y' } },
        })
        out.push({
          type: 'tool/code-dispatch',
          data: { turn, step, ...sub, isError: false, content: [{ type: 'text', text: 'y' }] },
        })
      }
      const failed = rand() < 0.3
      out.push({
        type: 'tool/result',
        data: failed
          ? {
              turn,
              step,
              callId,
              name,
              content: [{ type: 'text', text: 'Error: no' }],
              isError: true,
              error: { name: 'ToolFailedError', code: 'TOOL_FAILED' },
            }
          : {
              turn,
              step,
              callId,
              name,
              content: [{ type: 'text', text: `ok ${callId}` }],
              isError: false,
              ...(rand() < 0.5 ? { meta: { lines: 3 } } : {}),
            },
      })
    }
    out.push({ type: 'step/end', data: { turn, step } })
  }
  out.push({ type: 'turn/end', data: { turn, reason: pick(rand, ['completed', 'aborted'] as const) } })
  return out
}

/** `turns` complete turns starting at turn 1. */
export function scriptTurns(turns: number, rand: () => number): NewSessionEvent[] {
  const out: NewSessionEvent[] = []
  for (let t = 1; t <= turns; t++) out.push(...scriptTurn(t, rand))
  return out
}

/**
 * The L9.6 check: every tool-call block of an assistant message is answered by exactly one
 * tool message before the next assistant or user message, and no tool message is unmatched.
 * Returns the first problem, or `undefined`.
 */
export function toolPairingProblem(messages: readonly ModelMessage[]): string | undefined {
  let open = new Map<string, number>()
  const close = (): string | undefined => {
    for (const [id, n] of open) if (n !== 1) return `call ${id} has ${n} tool messages`
    return undefined
  }
  for (const m of messages) {
    if (m.role === 'tool') {
      const n = open.get(m.callId)
      if (n === undefined) return `tool message ${m.callId} answers no open call`
      open.set(m.callId, n + 1)
      continue
    }
    const problem = close()
    if (problem !== undefined) return problem
    open = new Map()
    if (m.role === 'assistant') for (const b of m.content) if (b.type === 'tool-call') open.set(b.id, 0)
  }
  return close()
}
