import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import { createAgent } from '@tooltx/agent'
import { aiSdkModel } from '@tooltx/ai-sdk'
import { memoryStore, openSession } from '@tooltx/session'
import { describe, expect, it, onTestFinished } from 'vitest'
import { wireServer } from '../../agent/test/loopback-server.js'
// The CLI demo itself: its scripted replies, task and workspace tools with their policy.
import { DEMO_SCRIPT, DEMO_TASK } from '../../cli/src/demo-script.js'
import { createToolset, fixedApprover } from '../../cli/src/toolset.js'

const sample = fileURLToPath(new URL('../../cli/sample-workspace', import.meta.url))

/** The demo's reply `n` (from 1) as a Chat Completions stream, tool calls streamed in two pieces. */
function demoReply(n: number): string[] {
  const step: (typeof DEMO_SCRIPT)[number] = DEMO_SCRIPT[n - 1] ?? { text: 'done.' }
  const chunk = (delta: object, finish: string | null = null) =>
    `data: ${JSON.stringify({ id: `r${n}`, object: 'chat.completion.chunk', created: 1, model: 'demo', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`
  const events = [chunk({ role: 'assistant', content: step.text ?? '' })]
  for (const [index, call] of (step.toolCalls ?? []).entries()) {
    const half = Math.floor(call.arguments.length / 2)
    events.push(
      chunk({
        tool_calls: [
          {
            index,
            id: call.id,
            type: 'function',
            function: { name: call.name, arguments: call.arguments.slice(0, half) },
          },
        ],
      }),
      chunk({ tool_calls: [{ index, function: { arguments: call.arguments.slice(half) } }] }),
    )
  }
  events.push(chunk({}, step.toolCalls ? 'tool_calls' : 'stop'), 'data: [DONE]\n\n')
  return events
}

describe('Z2: aiSdkModel runs the CLI demo', () => {
  it('Z2.5: the demo task over @ai-sdk/openai-compatible against a loopback server: every call, its policy outcome and the note', async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'tooltx-ai-sdk-demo-'))
    onTestFinished(() => rmSync(root, { recursive: true, force: true }))
    cpSync(sample, root, { recursive: true })
    const server = await wireServer((n) => ({ sse: demoReply(n) }), '/v1')
    const provider = createOpenAICompatible({ name: 'demo', baseURL: server.baseURL, apiKey: 'k' })
    // Room for lint on a loaded machine; slow-check still runs far past it (30 s).
    const { runtime, scope } = createToolset({ root, checkTimeoutMs: 3_000 })
    const session = await openSession(memoryStore(), { id: 'ai-sdk-demo' })
    const agent = createAgent({
      runtime,
      scope,
      session,
      model: aiSdkModel(provider.chatModel('demo')),
      approver: fixedApprover('allowed-once'),
    })
    agent.send(DEMO_TASK)
    await agent.whenIdle()
    await session.close()

    // One provider request per scripted reply, each carrying the workspace tools.
    expect(server.received).toHaveLength(DEMO_SCRIPT.length)
    for (const { url, body } of server.received) {
      expect(url).toBe('/v1/chat/completions')
      expect(body.tools.map((t: { function: { name: string } }) => t.function.name).sort()).toEqual([
        'grep',
        'list_files',
        'read_file',
        'run_check',
        'write_note',
      ])
    }
    const events = session.events()
    const calls = events.flatMap((e) => (e.type === 'tool/call' ? [e.data] : []))
    const script = DEMO_SCRIPT.flatMap((step) => step.toolCalls ?? [])
    // The log keeps each call as the provider's tool-call part carried it (Z2.5).
    expect(calls.map((c) => [c.callId, c.name, c.arguments])).toEqual(
      script.map((c) => [c.id, c.name, c.arguments]),
    )
    const results = new Map(
      events.flatMap((e) => (e.type === 'tool/result' ? [[e.data.callId, e.data] as const] : [])),
    )
    const code = (id: string) => {
      const r = results.get(id)
      return r === undefined ? 'missing' : r.isError ? r.error?.code : 'ok'
    }
    expect(script.map((c) => [c.id, code(c.id ?? '')])).toEqual([
      ['call_list', 'ok'],
      ['call_grep', 'ok'],
      ['call_readme', 'ok'],
      ['call_env', 'DENIED'],
      ['call_lint', 'ok'],
      ['call_slow', 'TOOL_TIMEOUT'],
      ['call_note', 'ok'],
    ])
    // The tool results went back to the provider as role "tool" messages of their calls.
    const last = server.received.at(-1)!.body.messages as { role: string; tool_call_id?: string }[]
    expect(last.filter((m) => m.role === 'tool').map((m) => m.tool_call_id)).toEqual(script.map((c) => c.id))
    const note = JSON.parse(script.at(-1)!.arguments) as { name: string; text: string }
    expect(readFileSync(path.join(root, 'notes', note.name), 'utf8')).toBe(note.text)
    const end = events.findLast((e) => e.type === 'turn/end')
    expect(end?.type === 'turn/end' && end.data.reason).toBe('completed')
  })
})
