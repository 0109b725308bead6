import { execFile } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { promisify } from 'node:util'
import { DEFAULT_MODELS } from '@tooltx/agent'
import { afterEach, describe, expect, it } from 'vitest'
import { lazyClient } from '../src/model/sdk-loader.js'
import { refusedURL } from './loopback-server.js'

const run = promisify(execFile)
// These tests run the BUILT package the way an installed copy runs (`npm run build` first, as `npm test` does).
const DIST = fileURLToPath(new URL('../dist/', import.meta.url))
const HOOKS = fileURLToPath(new URL('./fixtures/sdk-hooks.register.mjs', import.meta.url))

/**
 * In a fresh node: imports the built package, notes which SDK specifiers were resolved by then,
 * then sends two requests through each adapter and reports what each threw.
 */
const CHILD = `
const { existsSync, readFileSync } = await import('node:fs')
const file = process.env.TOOLTX_SDK_LOG
const resolved = () => (existsSync(file) ? readFileSync(file, 'utf8').split('\\n').filter(Boolean) : [])
const agent = await import(process.env.DIST_INDEX)
const afterImport = resolved()
const request = { instructions: '', tools: [], messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] }
const options = { apiKey: 'k', baseURL: process.env.BASE_URL, maxRetries: 0 }
const models = {
  openai: agent.openaiCompatible({ ...options, model: 'm' }),
  anthropic: agent.anthropic({ ...options, model: 'c' }),
}
const failures = { openai: [], anthropic: [] }
for (const [label, model] of Object.entries(models)) {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      for await (const _ of model.stream(request, new AbortController().signal));
      failures[label].push('completed')
    } catch (e) {
      failures[label].push({ name: e.name, kind: e.kind, message: e.message })
    }
  }
}
console.log(JSON.stringify({ defaults: agent.DEFAULT_MODELS, afterImport, afterRequests: resolved(), failures }))
`

let dir: string | undefined
afterEach(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
  dir = undefined
})

async function child(hide: boolean) {
  expect(existsSync(join(DIST, 'index.js')), 'packages/agent/dist is missing: run `npm run build`').toBe(true)
  dir = mkdtempSync(join(tmpdir(), 'tooltx-sdk-'))
  const env = {
    ...process.env,
    TOOLTX_SDK_LOG: join(dir, 'resolved.log'),
    TOOLTX_HIDE_SDKS: hide ? '1' : '0',
    DIST_INDEX: pathToFileURL(join(DIST, 'index.js')).href,
    BASE_URL: await refusedURL(),
  }
  const { stdout } = await run(process.execPath, ['--import', HOOKS, '--input-type=module', '-e', CHILD], {
    env,
    timeout: 20_000,
  })
  return { out: JSON.parse(stdout), baseURL: env.BASE_URL }
}

describe('L12.4 the provider SDKs are optional peer dependencies', () => {
  it('L12.4: importing the built package resolves neither SDK; each adapter imports its SDK on its first request and reuses the client', async () => {
    const { out, baseURL } = await child(false)
    expect(out.afterImport).toEqual([])
    // One import per adapter for two requests each: the client is built once.
    expect(out.afterRequests).toEqual(['openai', '@anthropic-ai/sdk'])
    expect(out.failures.openai).toEqual([
      expect.objectContaining({ name: 'ModelError', kind: 'connection' }),
      expect.objectContaining({ name: 'ModelError', kind: 'connection' }),
    ])
    expect(out.failures.anthropic[0].message).toContain(`cannot reach ${baseURL}`)
  })

  it('L12.4: with both SDKs uninstalled the package still imports, and each request fails with a setup ModelError naming the package to install, retried next time', async () => {
    const { out } = await child(true)
    expect(out.defaults).toEqual(DEFAULT_MODELS)
    const from = (file: string) => pathToFileURL(join(DIST, 'model', file)).href
    const openai = {
      name: 'ModelError',
      kind: 'setup',
      message:
        `openai-compatible:m: cannot load the "openai" package (Cannot find package 'openai' imported from ${from('openai-compatible.js')}). ` +
        'openaiCompatible needs it; it is an optional peer dependency of @tooltx/agent, so install it next to it: npm install openai',
    }
    const anthropic = {
      name: 'ModelError',
      kind: 'setup',
      message:
        `anthropic:c: cannot load the "@anthropic-ai/sdk" package (Cannot find package '@anthropic-ai/sdk' imported from ${from('anthropic.js')}). ` +
        'anthropic needs it; it is an optional peer dependency of @tooltx/agent, so install it next to it: npm install @anthropic-ai/sdk',
    }
    expect(out.failures).toEqual({ openai: [openai, openai], anthropic: [anthropic, anthropic] })
    // A failed load is not remembered: the second request tried to import again.
    expect(out.afterRequests).toEqual(['openai', 'openai', '@anthropic-ai/sdk', '@anthropic-ai/sdk'])
  })

  it('L12.4: the built type declarations never import an SDK, so TypeScript users need neither', () => {
    const declarations = readdirSync(DIST, { recursive: true, encoding: 'utf8' }).filter((f) =>
      f.endsWith('.d.ts'),
    )
    expect(declarations).toContain(join('model', 'openai-compatible.d.ts'))
    for (const file of declarations) {
      const text = readFileSync(join(DIST, file), 'utf8')
      expect(text, file).not.toMatch(
        /from ['"](openai|@anthropic-ai\/sdk)|import\(['"](openai|@anthropic-ai\/sdk)/,
      )
    }
  })

  it('L12.4: lazyClient builds once, shares one load between concurrent first requests, and forgets a failed build', async () => {
    let imports = 0
    let builds = 0
    let failNext = true
    const get = lazyClient({
      adapter: 'x:m',
      sdk: { name: 'sdk-x', factory: 'x' },
      importSdk: async () => {
        imports++
        return { tag: 'module' }
      },
      build: (module) => {
        builds++
        if (failNext) {
          failNext = false
          throw new Error('apiKey is required')
        }
        return { client: module.tag }
      },
    })
    await expect(get()).rejects.toMatchObject({
      kind: 'setup',
      message:
        'x:m: the "sdk-x" client rejected the adapter\'s options: apiKey is required. Check the options of x.',
    })
    const [a, b] = await Promise.all([get(), get()])
    expect(a).toBe(b)
    expect(await get()).toBe(a)
    expect({ imports, builds }).toEqual({ imports: 2, builds: 2 })
  })
})
