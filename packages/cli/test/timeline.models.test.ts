import type { SessionEvent } from '@tooltx/session'
import { describe, expect, it } from 'vitest'
import { TimelineRenderer } from '../src/display/timeline.js'

const event = (seq: number, type: string, data: Record<string, unknown>) =>
  ({ seq, type, data: { turn: 1, step: 1, ...data } }) as unknown as SessionEvent

describe('the timeline and the loop with real models', () => {
  const render = (e: SessionEvent) => new TimelineRenderer(() => undefined).render(e)

  it('T1.5: reasoning is shown collapsed, one line per block, never its text', () => {
    const lines = render(
      event(4, 'assistant/message', {
        content: [
          { type: 'reasoning', wire: 'anthropic', text: 'secret plan '.repeat(100), data: {} },
          { type: 'reasoning', wire: 'anthropic', text: '', redacted: true, data: {} },
          { type: 'text', text: 'Done.' },
        ],
      }),
    )
    expect(lines).toEqual([
      '    ▸ thinking (1,200 characters, collapsed)',
      '    ▸ thinking (redacted)',
      '    assistant: Done.',
    ])
  })

  it('T2.2: a step whose reply stopped for an unusual reason says so; an ordinary one prints nothing', () => {
    expect(render(event(9, 'step/end', { stop: { reason: 'max_tokens', raw: 'length' } }))).toEqual([
      '    ■ the reply stopped: max_tokens (length)',
    ])
    expect(render(event(9, 'step/end', { stop: { reason: 'tool_calls', raw: 'tool_use' } }))).toEqual([])
  })

  it('T3.7: a compaction shows where it happened and what it replaced', () => {
    expect(
      render(
        event(50, 'context/compacted', {
          strategy: 'clear-tool-results',
          tokensBefore: 12_345,
          tokensAfter: 4_000,
          cleared: [
            { seq: 6, callId: 'c1', isError: false, content: [] },
            { seq: 9, callId: 'c2', isError: false, content: [] },
          ],
        }),
      ),
    ).toEqual(['    ⇢ context compacted: 2 old tool results cleared (12,345 → 4,000 tokens)'])
    expect(
      render(
        event(80, 'context/compacted', {
          strategy: 'summarise',
          tokensBefore: 9_000,
          tokensAfter: 900,
          through: 77,
          summary: { role: 'user', content: [{ type: 'text', text: 'summary' }] },
        }),
      ),
    ).toEqual(['    ⇢ context compacted: the history through seq 77 summarised (9,000 → 900 tokens)'])
  })
})
