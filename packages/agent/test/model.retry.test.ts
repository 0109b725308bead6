import { describe, expect, it } from 'vitest'
import { anthropic, type ModelRetry, openaiCompatible } from '../src/index.js'
import { collect, request, sseFixture, wireServer } from './loopback-server.js'

const ADAPTERS = [
  {
    name: 'openaiCompatible',
    basePath: '/v1',
    sse: sseFixture('openai-text-and-tools.sse'),
    make: (baseURL: string, onRetry: (retry: ModelRetry) => void, maxRetries?: number) =>
      openaiCompatible({ baseURL, apiKey: 'sk-test', model: 'gpt-fixture', onRetry, maxRetries }),
  },
  {
    name: 'anthropic',
    basePath: '',
    sse: sseFixture('anthropic-text-and-tools.sse'),
    make: (baseURL: string, onRetry: (retry: ModelRetry) => void, maxRetries?: number) =>
      anthropic({ baseURL, apiKey: 'sk-ant-test', model: 'claude-fixture', onRetry, maxRetries }),
  },
] as const

describe('L12.7 retries said as they happen', () => {
  for (const adapter of ADAPTERS) {
    it(`L12.7: ${adapter.name} tells onRetry of each retried HTTP answer, with the wait the server asked for, then the reply arrives`, async () => {
      const server = await wireServer(
        (n) =>
          n === 1
            ? { status: 500, json: { error: { message: 'boom' } }, headers: { 'retry-after-ms': '50' } }
            : { sse: adapter.sse },
        adapter.basePath,
      )
      const retries: ModelRetry[] = []
      const events = await collect(
        adapter
          .make(server.baseURL, (retry) => retries.push(retry))
          .stream(request(), new AbortController().signal),
      )
      expect(retries).toEqual([{ status: 500, delayMs: 50, attempt: 2, attempts: 3 }])
      expect(events.at(-1)?.type).toBe('message')
      expect(server.received).toHaveLength(2)
    })
  }

  it('L12.7: without a wait from the server the waits are 1 s, then 2 s; the last failed answer is not retried and not told', async () => {
    const server = await wireServer(() => ({ status: 503, json: { error: { message: 'busy' } } }), '/v1')
    const retries: ModelRetry[] = []
    const started = Date.now()
    const model = ADAPTERS[0].make(server.baseURL, (retry) => retries.push(retry), 2)
    await expect(collect(model.stream(request(), new AbortController().signal))).rejects.toMatchObject({
      kind: 'http',
      status: 503,
    })
    expect(retries).toEqual([
      { status: 503, delayMs: 1000, attempt: 2, attempts: 3 },
      { status: 503, delayMs: 2000, attempt: 3, attempts: 3 },
    ])
    expect(Date.now() - started).toBeGreaterThanOrEqual(2900)
    expect(server.received).toHaveLength(3)
  })
})
