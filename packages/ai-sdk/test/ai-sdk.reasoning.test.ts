import type { LanguageModelV4StreamPart } from '@ai-sdk/provider'
import { createAgent } from '@tooltx/agent'
import * as lib from '@tooltx/ai-sdk'
import { defineTool } from '@tooltx/core'
import { memoryStore, openSession } from '@tooltx/session'
import * as mock from 'ai/test'
import { describe, expect, it } from 'vitest'
import { scopeWith, textOutput } from '../../agent/test/loop-harness.js'

const usage = {
  inputTokens: { total: 5, noCache: 5, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 3, text: 3, reasoning: 0 },
}
/** Reasoning whose signature arrives on a later delta (as @ai-sdk/anthropic sends it), then a call. */
const THINK_THEN_CALL: LanguageModelV4StreamPart[] = [
  { type: 'reasoning-start', id: 'r1', providerMetadata: { anthropic: { kind: 'thinking' } } },
  { type: 'reasoning-delta', id: 'r1', delta: 'Look it ' },
  { type: 'reasoning-delta', id: 'r1', delta: 'up.' },
  { type: 'reasoning-delta', id: 'r1', delta: '', providerMetadata: { anthropic: { signature: 'sig/+=' } } },
  { type: 'reasoning-end', id: 'r1' },
  { type: 'reasoning-start', id: 'r2', providerMetadata: { anthropic: { redactedData: 'EmwK' } } },
  { type: 'reasoning-end', id: 'r2' },
  { type: 'tool-call', toolCallId: 'call_1', toolName: 'lookup', input: '{"q":"France"}' },
  { type: 'finish', usage, finishReason: { unified: 'tool-calls', raw: 'tool_use' } },
]
const ANSWER: LanguageModelV4StreamPart[] = [
  { type: 'text-start', id: 't1' },
  { type: 'text-delta', id: 't1', delta: 'Paris.' },
  { type: 'text-end', id: 't1' },
  { type: 'finish', usage, finishReason: { unified: 'stop', raw: 'end_turn' } },
]

describe("T1.4: the AI SDK bridge's reasoning", () => {
  it('T1.4: reasoning parts become reasoning blocks with their merged provider metadata, sent back as reasoning parts with it as provider options', async () => {
    const inner = new mock.MockLanguageModelV4({
      provider: 'mock',
      modelId: 'm1',
      doStream: [THINK_THEN_CALL, ANSWER].map((parts) => ({
        stream: mock.convertArrayToReadableStream(parts),
      })),
    })
    const { runtime, scope } = scopeWith(
      defineTool({
        name: 'lookup',
        description: 'Looks a country up.',
        parameters: { q: { type: 'string', required: true } },
        output: textOutput,
        execute: () => 'Paris',
      }),
    )
    const session = await openSession(memoryStore(), { id: 'ai-sdk-reasoning', verify: true })
    const agent = createAgent({ runtime, scope, session, model: lib.aiSdkModel(inner) })
    expect(await agent.send('capital of France?')).toMatchObject({ reason: 'completed', text: 'Paris.' })

    const reply = session.events().find((event) => event.type === 'assistant/message')
    expect(reply?.data.content).toEqual([
      {
        type: 'reasoning',
        wire: 'ai-sdk',
        text: 'Look it up.',
        data: { providerMetadata: { anthropic: { kind: 'thinking', signature: 'sig/+=' } } },
      },
      {
        type: 'reasoning',
        wire: 'ai-sdk',
        text: '',
        redacted: true,
        data: { providerMetadata: { anthropic: { redactedData: 'EmwK' } } },
      },
      { type: 'tool-call', id: 'call_1', name: 'lookup', arguments: '{"q":"France"}' },
    ])
    expect(inner.doStreamCalls[1]?.prompt[1]).toEqual({
      role: 'assistant',
      content: [
        {
          type: 'reasoning',
          text: 'Look it up.',
          providerOptions: { anthropic: { kind: 'thinking', signature: 'sig/+=' } },
        },
        { type: 'reasoning', text: '', providerOptions: { anthropic: { redactedData: 'EmwK' } } },
        { type: 'tool-call', toolCallId: 'call_1', toolName: 'lookup', input: { q: 'France' } },
      ],
    })
  })
})
