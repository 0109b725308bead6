import { describe, expect, it } from 'vitest'
import { collect, request, sseFixture, wireServer } from '../../agent/test/loopback-server.js'
import { chooseModel, NO_KEY } from '../src/commands/run.js'
import { cleanEnv, FIRST_USE_NOTICE, sampleWorkspace, tooltxWith } from './cli-harness.js'
import { fakeModel } from './fake-model.js'

const OPENAI = sseFixture('openai-text-and-tools.sse')

describe('K6 tooltx run with a local model', () => {
  it('K6.4: a --base-url run needs no key: it reaches the loopback model and saves the session', async () => {
    const cwd = sampleWorkspace()
    const model = await fakeModel([{ text: 'hello from a local model' }])
    const env = cleanEnv()
    expect(env.OPENAI_API_KEY ?? env.ANTHROPIC_API_KEY ?? env.OPENAI_BASE_URL).toBeUndefined()
    const result = await tooltxWith(
      { cwd, env },
      'run',
      'say hello',
      '--base-url',
      model.baseURL,
      '--model',
      'llama3.2',
    )
    expect(result.stderr).toBe(FIRST_USE_NOTICE)
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('tooltx run — openai-compatible:llama3.2')
    expect(result.stdout).toContain('hello from a local model')
    expect(result.stdout).toMatch(/Session saved as run-/)
    expect(model.requests).toHaveLength(1)
  })

  it(`K6.4: without a key the OpenAI-compatible adapter sends the placeholder "${NO_KEY}", and a key when one is set`, async () => {
    const server = await wireServer(() => ({ sse: OPENAI }), '/v1')
    const stream = (env: NodeJS.ProcessEnv, baseUrl?: string) =>
      collect(
        chooseModel({ env, ...(baseUrl ? { baseUrl } : {}) }).stream(request(), new AbortController().signal),
      )
    await stream({}, server.baseURL)
    await stream({ OPENAI_BASE_URL: server.baseURL })
    await stream({ OPENAI_API_KEY: 'sk-real' }, server.baseURL)
    expect(server.received.map((r) => r.headers.authorization)).toEqual([
      `Bearer ${NO_KEY}`,
      `Bearer ${NO_KEY}`,
      'Bearer sk-real',
    ])
  })

  it('K6.5: without a base URL and a key, or with --provider anthropic and no key, the run fails naming the variable', async () => {
    const cwd = sampleWorkspace()
    const model = await fakeModel([])
    const bare = await tooltxWith({ cwd, env: cleanEnv() }, 'run', 'say hello')
    expect(bare.code).toBe(1)
    expect(bare.stderr).toContain('set OPENAI_API_KEY')
    expect(bare.stderr).toContain('pass --base-url with a local OpenAI-compatible server')
    const claude = await tooltxWith(
      { cwd, env: cleanEnv() },
      'run',
      'say hello',
      '--provider',
      'anthropic',
      '--base-url',
      model.baseURL,
    )
    expect(claude).toMatchObject({
      code: 1,
      stderr: 'tooltx: --provider anthropic needs ANTHROPIC_API_KEY in the environment\n',
    })
    expect(model.requests).toHaveLength(0)
  })
})
