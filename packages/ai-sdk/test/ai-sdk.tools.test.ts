import type { LanguageModelV4GenerateResult } from '@ai-sdk/provider'
import * as lib from '@tooltx/ai-sdk'
import { createToolRuntime, defineTool, type ToolResult } from '@tooltx/core'
import * as ai from 'ai'
import * as mock from 'ai/test'
import { describe, expect, it } from 'vitest'
import { chatChunk, chatToolArgs, chatToolCall, DONE } from '../../agent/test/wire-fixtures.js'
import { addTool } from '../../mcp/test/fixtures/add-tool.mjs'
import { loopbackProvider } from './loopback-provider.js'

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
}

function generated(content: LanguageModelV4GenerateResult['content']): LanguageModelV4GenerateResult {
  const calls = content.some((part) => part.type === 'tool-call')
  return {
    content,
    finishReason: { unified: calls ? 'tool-calls' : 'stop', raw: undefined },
    usage,
    warnings: [],
  } as LanguageModelV4GenerateResult
}

/** A runtime with `add` and `deploy` in a scope, where a policy denies deploying to production. */
function rig() {
  const runtime = createToolRuntime()
  const scope = runtime.scope()
  const add = addTool({ text: (_args, value) => String(value.sum) })
  const deploy = defineTool({
    name: 'deploy',
    description: 'Deploy a service.',
    parameters: { target: { type: 'string', required: true } },
    output: { schema: { type: 'string' }, render: (_args, value) => [{ type: 'text', text: value }] },
    execute: async ({ target }) => `deployed to ${target}`,
  })
  scope.register(add)
  scope.register(deploy)
  runtime.onPreExecute(async (exec, next) =>
    (exec.arguments as { target?: string } | undefined)?.target === 'production'
      ? { kind: 'deny', reason: 'production is frozen' }
      : next(),
  )
  const executed: string[] = []
  runtime.onResult((exec, result) => {
    executed.push(`${exec.callId} ${exec.name} ${result.isError ? result.error.info?.code : 'ok'}`)
  })
  return { runtime, scope, executed }
}

describe('Z2: aiSdkTools', () => {
  it('Z2.6: generateText keeps its own loop; every call goes through runtime.execute and the model reads the content', async () => {
    const { runtime, scope, executed } = rig()
    const model = new mock.MockLanguageModelV4({
      doGenerate: [
        generated([
          { type: 'tool-call', toolCallId: 'g1', toolName: 'add', input: '{"a":2,"b":3}' },
          { type: 'tool-call', toolCallId: 'g2', toolName: 'deploy', input: '{"target":"production"}' },
          { type: 'tool-call', toolCallId: 'g3', toolName: 'add', input: '{"a":"two","b":3}' },
        ]),
        generated([{ type: 'text', text: 'Sum is 5.' }]),
      ],
    })
    const tools = lib.aiSdkTools(runtime, { scope })
    expect(Object.keys(tools)).toEqual(['add', 'deploy'])
    const result = await ai.generateText({
      model,
      tools,
      prompt: 'add 2 and 3, then deploy',
      stopWhen: ai.isStepCount(2),
    })

    expect(result.text).toBe('Sum is 5.')
    expect(executed.sort()).toEqual(['g1 add ok', 'g2 deploy DENIED', 'g3 add INVALID_ARGS'])
    const outputs = result.steps[0]!.toolResults.map((r) => r.output as ToolResult)
    expect(outputs[0]).toMatchObject({
      isError: false,
      value: { sum: 5 },
      content: [{ type: 'text', text: '5' }],
    })
    expect(Object.isFrozen(outputs[0])).toBe(true)
    expect(outputs[1]).toMatchObject({ isError: true, error: { info: { code: 'DENIED' } } })
    const toolMessages = model.doGenerateCalls[1]!.prompt.filter((m) => m.role === 'tool')
    expect(toolMessages.flatMap((m) => m.content)).toEqual([
      { type: 'tool-result', toolCallId: 'g1', toolName: 'add', output: { type: 'text', value: '5' } },
      {
        type: 'tool-result',
        toolCallId: 'g2',
        toolName: 'deploy',
        output: { type: 'error-text', value: (outputs[1]!.content[0] as { text: string }).text },
      },
      {
        type: 'tool-result',
        toolCallId: 'g3',
        toolName: 'add',
        output: { type: 'error-text', value: 'Error: invalid arguments: "a" must be an integer' },
      },
    ])
    expect((outputs[1]!.content[0] as { text: string }).text).toContain('production is frozen')
  })

  it('Z2.7: the tool set is the scope view: restricted tools are absent and Code Mode offers run_code', () => {
    const { runtime, scope } = rig()
    const restricted = runtime.scope({ parent: scope })
    restricted.restrict({ deny: ['deploy'] })
    expect(Object.keys(lib.aiSdkTools(runtime, { scope: restricted }))).toEqual(['add'])
    expect(Object.keys(lib.aiSdkTools(runtime))).toEqual([])
    const coded = runtime.scope({ parent: scope })
    coded.presentAs('code')
    expect(Object.keys(lib.aiSdkTools(runtime, { scope: coded }))).toEqual(['run_code'])
  })

  it('Z2.6: streamText with @ai-sdk/openai-compatible against a loopback server sends the scope schemas and runs through the runtime', async () => {
    const { runtime, scope, executed } = rig()
    const { server, provider } = await loopbackProvider(
      [chatToolCall('s1', 'add', '{"a":40,'), chatToolArgs('"b":2}'), chatChunk({}, 'tool_calls'), DONE],
      '42',
    )
    const result = ai.streamText({
      model: provider.chatModel('m'),
      tools: lib.aiSdkTools(runtime, { scope }),
      prompt: 'what is 40 + 2?',
      stopWhen: ai.isStepCount(2),
    })
    expect(await result.text).toBe('42')
    expect(executed).toEqual(['s1 add ok'])
    expect(
      server.received[0]?.body.tools.map((t: { function: { name: string } }) => t.function.name),
    ).toEqual(['add', 'deploy'])
    expect(server.received[0]?.body.tools[0].function.parameters).toEqual(
      runtime.view(scope).schemas()[0]?.parameters,
    )
    expect(server.received[1]?.body.messages.at(-1)).toEqual({
      role: 'tool',
      tool_call_id: 's1',
      content: '42',
    })
  })
})
