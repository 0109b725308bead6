/**
 * Real processes for the MCP tests: our fixture server in a child process over stdio or HTTP,
 * driven by the official SDK client. The fixture imports the BUILT packages (`npm run build`).
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { Client, type ClientOptions, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio'

export const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url))

/** What every test needs to stop afterwards. */
export const cleanups: (() => Promise<unknown> | unknown)[] = []

export async function cleanupAll(): Promise<void> {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
}

/** Starts the fixture's HTTP server and resolves with its URL once it listens. */
export async function startHttpFixture(token?: string): Promise<{ url: URL; child: ChildProcess }> {
  const child = spawn(process.execPath, [fixture('tooltx-server.mjs'), 'http', ...(token ? [token] : [])], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  cleanups.push(() => {
    child.kill()
  })
  const url = await new Promise<URL>((resolve, reject) => {
    let buffered = ''
    child.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8')
      const line = buffered.split('\n')[0]
      if (buffered.includes('\n')) resolve(new URL((JSON.parse(line!) as { url: string }).url))
    })
    child.once('exit', (code) => reject(new Error(`fixture exited with ${code}`)))
  })
  return { url, child }
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
