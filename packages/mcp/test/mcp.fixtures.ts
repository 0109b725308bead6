/**
 * Real processes for the MCP tests: our fixture server in a child process over stdio or HTTP,
 * driven by the official SDK client. The fixture imports the BUILT packages (`npm run build`).
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { Client, type ClientOptions, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio'
import type { StandardSchemaV1 } from '@standard-schema/spec'
import { expect } from 'vitest'

export const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url))

/** What every test needs to stop afterwards. */
export const cleanups: (() => Promise<unknown> | unknown)[] = []

export async function cleanupAll(): Promise<void> {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
}

/**
 * `child`'s stdout as lines, read from now on: `first` resolves with the first whole line and
 * rejects if the child exits before printing one; `line(i)` is line `i` as far as printed yet.
 */
export function stdoutLines(child: ChildProcess): {
  first: Promise<string>
  line(index: number): string | undefined
} {
  let buffered = ''
  const first = new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8')
      if (buffered.includes('\n')) resolve(buffered.split('\n')[0]!)
    })
    child.once('exit', (code) =>
      reject(new Error(`the child process exited with ${code} before printing a line`)),
    )
  })
  return { first, line: (index) => buffered.split('\n')[index] }
}

/** Starts the fixture's HTTP server and resolves with its URL once it listens. */
export function startHttpFixture(token?: string): Promise<{ url: URL; child: ChildProcess }> {
  return startUrlFixture('tooltx-server.mjs', ['http', ...(token ? [token] : [])])
}

/**
 * Starts the fixture `script` (which prints `{"url": …}` as its first line once it listens) and
 * resolves with that URL; the child is stopped by {@link cleanupAll}.
 */
export async function startUrlFixture(
  script: string,
  args: readonly string[] = [],
): Promise<{ url: URL; child: ChildProcess }> {
  const child = spawn(process.execPath, [fixture(script), ...args], { stdio: ['ignore', 'pipe', 'inherit'] })
  cleanups.push(() => {
    child.kill()
  })
  const line = await stdoutLines(child).first
  return { url: new URL((JSON.parse(line) as { url: string }).url), child }
}

/** A connected official client over `kind`; registered for cleanup. */
export async function connect(
  kind: 'stdio' | 'http',
  options: ClientOptions = {},
  setup: (client: Client) => void = () => undefined,
): Promise<Client> {
  const client = new Client({ name: 'test-client', version: '1.0.0' }, options)
  setup(client)
  if (kind === 'stdio') {
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [fixture('tooltx-server.mjs'), 'stdio'],
        stderr: 'inherit',
      }),
    )
  } else {
    const { url } = await startHttpFixture()
    await client.connect(new StreamableHTTPClientTransport(url))
  }
  cleanups.push(() => client.close())
  return client
}

/** The progress notifications of a call that counts `1..total`, each with the message `<label> <i>`. */
export const progressSteps = (total: number, label: string) =>
  Array.from({ length: total }, (_, i) => ({ progress: i + 1, total, message: `${label} ${i + 1}` }))

/** Any MCP client (the v2 SDK's or the v1 SDK's): what `expectServedAdd` calls. */
interface CallsTools {
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<object>
}

/**
 * Asserts the served `add` (integers `a`, `b`; structured `{ sum }`, text `a + b = sum`): 2 + 3
 * succeeds and a string `a` is an INVALID_ARGS failure, with their exact content.
 */
export async function expectServedAdd(client: CallsTools): Promise<void> {
  type Served = { isError?: boolean; structuredContent?: unknown; content: { text?: string }[] }
  const textOf = (result: Served) => result.content.map((b) => b.text).join('\n')
  const codeOf = (result: object) =>
    (
      (result as { _meta?: Record<string, unknown> })._meta?.['tooltx/result'] as
        | { code?: string }
        | undefined
    )?.code ?? 'ok'
  const sum = (await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } })) as Served
  expect([sum.isError ?? false, sum.structuredContent, textOf(sum)]).toEqual([false, { sum: 5 }, '2 + 3 = 5'])
  const bad = (await client.callTool({ name: 'add', arguments: { a: 'two', b: 3 } })) as Served
  expect([bad.isError, codeOf(bad), textOf(bad)]).toEqual([
    true,
    'INVALID_ARGS',
    'Error: invalid arguments: "a" must be an integer',
  ])
}

/** The Tasks extension's id as the wire spells it (a literal, so a test checks the source's constant). */
export const EXTENSION = 'io.modelcontextprotocol/tasks'

/** Any object answer (the SDK leaves the extension's results out of its method map). */
export const ANY: StandardSchemaV1<unknown, Record<string, unknown>> = {
  '~standard': {
    version: 1,
    vendor: 'test',
    validate: (value) => ({ value: value as Record<string, unknown> }),
  },
}
