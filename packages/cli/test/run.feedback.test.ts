import { describe, expect, it } from 'vitest'
import { loopbackHttp } from '../../agent/test/loopback-server.js'
import { cleanEnv, FIRST_USE_NOTICE, sampleWorkspace, tooltxWith } from './cli-harness.js'
import { fakeModel, slowModel } from './fake-model.js'

const modelEnv = () => cleanEnv({ OPENAI_API_KEY: 'test-key' })

/** A model server on 127.0.0.1 that accepts every request and never answers; resolves with its base URL. */
async function silentModel(): Promise<{ baseURL: string; requests: () => number }> {
  let requests = 0
  const port = await loopbackHttp(async () => {
    requests++
  })
  return { baseURL: `http://127.0.0.1:${port}/v1`, requests: () => requests }
}

describe('K2 tooltx run: feedback while the model works', () => {
  it('K2.11: a request with no answer within --timeout fails naming the URL, the turn is recorded as an error, exit 1', async () => {
    const cwd = sampleWorkspace()
    const model = await silentModel()
    const started = Date.now()
    const result = await tooltxWith(
      { cwd, env: modelEnv() },
      'run',
      'say hello',
      '--base-url',
      model.baseURL,
      '--timeout',
      '1',
    )
    const said = `no answer from ${model.baseURL} within 1 s; raise it with --timeout or check the server`
    expect(result.code).toBe(1)
    expect(result.stderr).toBe(`${FIRST_USE_NOTICE}tooltx: ${said}\n`)
    expect(result.stdout).toContain(`── turn 1 error: openai-compatible:gpt-5.4-mini: ${said} ──`)
    expect(result.stdout).toMatch(/Session saved as run-/)
    expect(model.requests()).toBe(1)
    expect(Date.now() - started).toBeLessThan(8_000)
  })

  it('K2.11: --timeout takes a whole number of seconds, at least 1', async () => {
    const cwd = sampleWorkspace()
    const result = await tooltxWith({ cwd, env: modelEnv() }, 'run', 'say hello', '--timeout', 'soon')
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('tooltx: --timeout must be a whole number of at least 1, got "soon"')
  })

  it('K2.12: without a terminal no waiting line is printed, and the reply is printed once, whole', async () => {
    const cwd = sampleWorkspace()
    const baseURL = await slowModel(['Hello, ', 'world.'], 1_200, 200)
    const result = await tooltxWith({ cwd, env: modelEnv() }, 'run', 'say hello', '--base-url', baseURL)
    expect(result.code).toBe(0)
    expect(result.stdout).not.toContain('waiting for')
    expect(result.stdout).toContain('    assistant: Hello, world.\n── turn 1 completed ──')
    expect(result.stdout.split('assistant:')).toHaveLength(2)
  })

  it('K2.13: each automatic retry is said on stderr as it happens, with the status, the wait and the attempt', async () => {
    const cwd = sampleWorkspace()
    const model = await fakeModel([{ text: 'second time lucky' }])
    let failed = false
    const port = await loopbackHttp(async (req, raw, res) => {
      if (!failed) {
        failed = true
        res.writeHead(500, { 'content-type': 'application/json' })
        res.end(JSON.stringify({ error: { message: 'boom' } }))
        return
      }
      const upstream = await fetch(`${model.baseURL}${req.url?.replace(/^\/v1/, '')}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: raw,
      })
      res.writeHead(upstream.status, { 'content-type': 'text/event-stream' })
      res.end(await upstream.text())
    })
    const result = await tooltxWith(
      { cwd, env: modelEnv() },
      'run',
      'say hello',
      '--base-url',
      `http://127.0.0.1:${port}/v1`,
    )
    expect(result.code).toBe(0)
    expect(result.stderr).toBe(`${FIRST_USE_NOTICE}tooltx: HTTP 500, retrying in 1 s, 2 of 3\n`)
    expect(result.stdout).toContain('assistant: second time lucky')
  })

  it('K2.14: a rejected key and an unknown model name the variable and the flags to change, never an adapter option', async () => {
    const cwd = sampleWorkspace()
    const failing = async (status: number, message: string) => {
      const port = await loopbackHttp(async (_req, _raw, res) => {
        res.writeHead(status, { 'content-type': 'application/json' })
        res.end(JSON.stringify({ error: { message } }))
      })
      const baseURL = `http://127.0.0.1:${port}/v1`
      const result = await tooltxWith(
        { cwd, env: modelEnv() },
        'run',
        'say hello',
        '--base-url',
        baseURL,
        '--model',
        'nope',
      )
      expect(result.code).toBe(1)
      expect(result.stderr).not.toMatch(/apiKey|baseURL|timeoutMs|maxRetries/)
      expect(result.stdout).not.toMatch(/apiKey|baseURL|timeoutMs|maxRetries/)
      return { result, baseURL }
    }
    const key = await failing(401, 'Incorrect API key provided')
    const said = `openai-compatible:nope: HTTP 401 from ${key.baseURL}: Incorrect API key provided. Check the key in OPENAI_API_KEY.`
    // The first run in the workspace makes the default store; the second finds it.
    expect(key.result.stderr).toBe(`${FIRST_USE_NOTICE}tooltx: the run failed: ${said}\n`)
    expect(key.result.stdout).toContain(`── turn 1 error: ${said} ──`)
    const model = await failing(404, 'The model `nope` does not exist')
    expect(model.result.stderr).toBe(
      `tooltx: the run failed: openai-compatible:nope: HTTP 404 from ${model.baseURL}: The model \`nope\` does not exist. Check --base-url (or OPENAI_BASE_URL) and --model.\n`,
    )
  })
})
