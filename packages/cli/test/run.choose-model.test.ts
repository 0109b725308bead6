import { DEFAULT_MODELS } from '@tooltx/agent'
import { describe, expect, it } from 'vitest'
import { collect, request, sseFixture, wireServer } from '../../agent/test/loopback-server.js'
import { main } from '../src/cli.js'
import { chooseModel, type RunOptions } from '../src/commands/run.js'
import type { Output } from '../src/display/output.js'

const OPENAI = sseFixture('openai-text-and-tools.sse')
const ANTHROPIC = sseFixture('anthropic-text-and-tools.sse')

const options = (env: NodeJS.ProcessEnv, more: Partial<RunOptions> = {}): RunOptions => ({
  task: 't',
  db: ':memory:',
  mode: 'native',
  workspace: '.',
  yes: false,
  env,
  ...more,
})

/** Streams one request through the adapter `chooseModel` built. */
const ask = (opts: RunOptions) => collect(chooseModel(opts).stream(request(), new AbortController().signal))

describe('tooltx run: base URL and default model', () => {
  const endpoints = [
    {
      title: 'L12.6: the Anthropic adapter is sent to ANTHROPIC_BASE_URL, and --base-url wins over it',
      sse: ANTHROPIC,
      basePath: '',
      env: (baseURL: string) => ({ ANTHROPIC_API_KEY: 'sk-ant', ANTHROPIC_BASE_URL: baseURL }),
      url: '/v1/messages',
    },
    {
      title: 'L12.6: the OpenAI-compatible adapter is sent to OPENAI_BASE_URL, and --base-url wins over it',
      sse: OPENAI,
      basePath: '/v1',
      env: (baseURL: string) => ({ OPENAI_API_KEY: 'sk', OPENAI_BASE_URL: baseURL }),
      url: '/v1/chat/completions',
    },
  ]
  for (const endpoint of endpoints) {
    it(endpoint.title, async () => {
      const fromEnv = await wireServer(() => ({ sse: endpoint.sse }), endpoint.basePath)
      const fromFlag = await wireServer(() => ({ sse: endpoint.sse }), endpoint.basePath)
      const env = endpoint.env(fromEnv.baseURL)
      await ask(options(env))
      expect(fromEnv.received.map((r) => r.url)).toEqual([endpoint.url])
      await ask(options(env, { baseUrl: fromFlag.baseURL }))
      expect(fromFlag.received.map((r) => r.url)).toEqual([endpoint.url])
      expect(fromEnv.received).toHaveLength(1)
    })
  }

  it('L12.5: without --model each provider gets its DEFAULT_MODELS entry, which the run help shows', async () => {
    expect(DEFAULT_MODELS).toEqual({ openai: 'gpt-5.4-mini', anthropic: 'claude-sonnet-5-5' })
    expect(Object.isFrozen(DEFAULT_MODELS)).toBe(true)
    const claude = await wireServer(() => ({ sse: ANTHROPIC }))
    const gpt = await wireServer(() => ({ sse: OPENAI }), '/v1')
    await ask(options({ ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: claude.baseURL }))
    await ask(options({ OPENAI_API_KEY: 'k', OPENAI_BASE_URL: gpt.baseURL }))
    expect(claude.received[0]?.body.model).toBe('claude-sonnet-5-5')
    expect(gpt.received[0]?.body.model).toBe('gpt-5.4-mini')

    const printed: string[] = []
    const out: Output = {
      line: (text = '') => printed.push(text),
      error: () => {},
      text: () => {},
      interactive: false,
      status: () => {},
      columns: undefined,
      prompt: undefined,
      onClosed: () => () => {},
    }
    expect(await main(['run', '--help'], out, {})).toBe(0)
    expect(printed.join('\n')).toContain(
      '--model M        the model name (default gpt-5.4-mini / claude-sonnet-5-5)',
    )
    expect(printed.join('\n')).toContain('ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL.')
  })
})
