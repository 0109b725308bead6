import { execFile } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { promisify } from 'node:util'
import { anthropic, ModelAbortError, type ModelAdapter, openaiCompatible } from '@tooltx/agent'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { answerDetail } from '../src/model/wire-request.js'
import { retryDelayMs } from '../src/model/wire-retry.js'
import { collect, loopbackHttp, request, sseFixture, streamError, wireServer } from './loopback-server.js'

const run = promisify(execFile)
// The built package, as an installed copy runs it (`npm run build` first, as `npm test` does).
const DIST = fileURLToPath(new URL('../dist/', import.meta.url))
const MANIFEST = fileURLToPath(new URL('../package.json', import.meta.url))
const SDK = /['"](openai|@anthropic-ai\/sdk)(\/[^'"]*)?['"]/

/** In a fresh node: imports the built package and streams one request through each adapter. */
const CHILD = `
const agent = await import(process.env.DIST_INDEX)
const request = { instructions: '', tools: [], messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] }
const models = [
  agent.openaiCompatible({ apiKey: 'k', baseURL: process.env.OPENAI_URL, model: 'm' }),
  agent.anthropic({ apiKey: 'k', baseURL: process.env.ANTHROPIC_URL, model: 'c' }),
]
const last = []
for (const model of models) {
  let event
  for await (event of model.stream(request, new AbortController().signal));
  last.push(event.type)
}
console.log(JSON.stringify({ last }))
`

/** A server on 127.0.0.1 that takes each request and never answers it. */
async function silentServer(): Promise<{ baseURL: string; requests: () => number }> {
  let requests = 0
  const port = await loopbackHttp(async () => {
    requests++
  })
  return { baseURL: `http://127.0.0.1:${port}`, requests: () => requests }
}

describe('L12.4 the adapters speak HTTP themselves', () => {
  it('L12.4: @tooltx/agent names no provider SDK, its build imports none, and in a fresh node each adapter streams a whole reply', async () => {
    const manifest = JSON.parse(readFileSync(MANIFEST, 'utf8'))
    const named = { ...manifest.dependencies, ...manifest.peerDependencies, ...manifest.devDependencies }
    expect(Object.keys(named)).not.toContain('openai')
    expect(Object.keys(named)).not.toContain('@anthropic-ai/sdk')
    expect(manifest.dependencies['eventsource-parser']).toMatch(/^\^3\./)

    expect(existsSync(join(DIST, 'index.js')), 'packages/agent/dist is missing: run `npm run build`').toBe(
      true,
    )
    const built = readdirSync(DIST, { recursive: true, encoding: 'utf8' }).filter((f) =>
      /\.(d\.ts|js)$/.test(f),
    )
    expect(built).toContain(join('model', 'wire-events.js'))
    for (const file of built) expect(readFileSync(join(DIST, file), 'utf8'), file).not.toMatch(SDK)

    const openai = await wireServer(() => ({ sse: sseFixture('openai-text-and-tools.sse') }), '/v1')
    const claude = await wireServer(() => ({ sse: sseFixture('anthropic-text-and-tools.sse') }))
    const env = {
      ...process.env,
      DIST_INDEX: pathToFileURL(join(DIST, 'index.js')).href,
      OPENAI_URL: openai.baseURL,
      ANTHROPIC_URL: claude.baseURL,
    }
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', CHILD], {
      env,
      timeout: 20_000,
    })
    expect(JSON.parse(stdout).last).toEqual(['message', 'message'])
    expect(openai.received[0]?.headers.authorization).toBe('Bearer k')
    expect(claude.received[0]?.headers['x-api-key']).toBe('k')
  })
})

describe('L12.9 the HTTP transport: timeouts, retries of failed connections, options', () => {
  it('L12.9: an answer whose headers do not come within timeoutMs is cancelled and retried, then fails as a connection ModelError that says to raise timeoutMs', async () => {
    const server = await silentServer()
    const model = openaiCompatible({
      baseURL: server.baseURL,
      apiKey: 'k',
      model: 'm',
      timeoutMs: 150,
      maxRetries: 1,
    })
    const started = Date.now()
    const error = await streamError(model)
    expect(error).toMatchObject({ name: 'ModelError', kind: 'connection' })
    expect((error as Error).message).toBe(
      `openai-compatible:m: cannot reach ${server.baseURL} (the request timed out; raise timeoutMs if the model is slow). ` +
        'Check that the server is running and that baseURL is right.',
    )
    // Two attempts of 150 ms with the first default wait (1 s) between them.
    expect(server.requests()).toBe(2)
    expect(Date.now() - started).toBeGreaterThanOrEqual(1250)
  })

  it('L12.9: a connection torn down before any answer is retried maxRetries times without telling onRetry, which is for HTTP answers', async () => {
    let refused = 0
    const port = await loopbackHttp(async (req, _body, res) => {
      // Two connections torn down before any answer, then the reply.
      if (++refused <= 2) return void req.socket.destroy()
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.end(sseFixture('anthropic-text-and-tools.sse').join(''))
    })
    const retries: unknown[] = []
    const model = anthropic({
      baseURL: `http://127.0.0.1:${port}`,
      apiKey: 'k',
      model: 'c',
      onRetry: (retry) => retries.push(retry),
    })
    const events = await collect(model.stream(request(), new AbortController().signal))
    expect(events.at(-1)?.type).toBe('message')
    expect(refused).toBe(3)
    expect(retries).toEqual([])
  })

  it('L12.9: an abort during a retry wait ends the request at once with ModelAbortError', async () => {
    const server = await wireServer(
      () => ({ status: 503, json: {}, headers: { 'retry-after': '30' } }),
      '/v1',
    )
    const controller = new AbortController()
    const model = openaiCompatible({
      baseURL: server.baseURL,
      apiKey: 'k',
      model: 'm',
      onRetry: () => setTimeout(() => controller.abort(), 20),
    })
    const started = Date.now()
    await expect(collect(model.stream(request(), controller.signal))).rejects.toBeInstanceOf(ModelAbortError)
    expect(Date.now() - started).toBeLessThan(5_000)
    expect(server.received).toHaveLength(1)
  })

  it.each<[string, (baseURL: string) => ModelAdapter, string]>([
    [
      'maxRetries',
      (baseURL) => openaiCompatible({ baseURL, apiKey: 'k', model: 'm', maxRetries: -1 }),
      'openai-compatible:m: maxRetries must be a whole number, 0 or more, got -1. Check the options of openaiCompatible.',
    ],
    [
      'timeoutMs',
      (baseURL) => anthropic({ baseURL, apiKey: 'k', model: 'c', timeoutMs: 0.5 }),
      'anthropic:c: timeoutMs must be a whole number of milliseconds from 1 to 2147483647, got 0.5. Check the options of anthropic.',
    ],
    [
      'baseURL',
      () => openaiCompatible({ baseURL: 'localhost:11434/v1', apiKey: 'k', model: 'm' }),
      'openai-compatible:m: baseURL must be an http or https URL, got "localhost:11434/v1". Check the options of openaiCompatible.',
    ],
  ])(
    'L12.9: a bad %s fails every request with a setup ModelError that says what to fix, and sends nothing',
    async (_, make, message) => {
      const server = await wireServer(() => ({ sse: [] }), '/v1')
      const model = make(server.baseURL)
      for (let attempt = 0; attempt < 2; attempt++) {
        expect(await streamError(model)).toMatchObject({ name: 'ModelError', kind: 'setup', message })
      }
      expect(server.received).toHaveLength(0)
    },
  )

  it("L12.9: an error answer says the server's words: a JSON error message, a JSON error string, or its text", async () => {
    const bodies = [
      { error: { message: 'no such model' } },
      { error: "model 'x' not found" },
      '<h1>Bad gateway</h1>',
    ]
    const messages: string[] = []
    for (const body of bodies) {
      const port = await loopbackHttp(async (_req, _raw, res) => {
        res.writeHead(404, { 'content-type': typeof body === 'string' ? 'text/html' : 'application/json' })
        res.end(typeof body === 'string' ? body : JSON.stringify(body))
      })
      const baseURL = `http://127.0.0.1:${port}/v1`
      const error = await streamError(openaiCompatible({ baseURL, apiKey: 'k', model: 'm' }))
      messages.push((error as Error).message.replace(baseURL, 'URL'))
    }
    expect(messages).toEqual([
      'openai-compatible:m: HTTP 404 from URL: no such model. Check the baseURL and the model name.',
      "openai-compatible:m: HTTP 404 from URL: model 'x' not found. Check the baseURL and the model name.",
      'openai-compatible:m: HTTP 404 from URL: <h1>Bad gateway</h1>. Check the baseURL and the model name.',
    ])
  })

  it('L12.9, L12.7: what an error answer says and the wait before a retry are total: any body gives at most 501 characters, any headers a wait under a minute', () => {
    const body = fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 2000 }),
      fc.json().map((json) => `{"error":${json}}`),
      fc.anything().map((value) => JSON.stringify({ error: { message: value } }) ?? ''),
    )
    fc.assert(
      fc.property(body, (text) => {
        const detail = answerDetail(text)
        expect(typeof detail).toBe('string')
        expect(detail.length).toBeLessThanOrEqual(501)
      }),
    )
    const header = fc.oneof(
      fc.stringMatching(/^[!-~]{0,30}$/),
      fc.double().map(String),
      fc.date({ noInvalidDate: false }).map(String),
    )
    fc.assert(
      fc.property(fc.nat(40), header, header, (done, ms, after) => {
        const delay = retryDelayMs(done, new Headers({ 'retry-after-ms': ms, 'retry-after': after }))
        expect(delay).toBeGreaterThanOrEqual(0)
        expect(delay).toBeLessThan(60_000)
        expect(retryDelayMs(done)).toBe(Math.min(1000 * 2 ** done, 8000))
      }),
    )
  })
})
