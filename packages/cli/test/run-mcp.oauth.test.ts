import { spawn } from 'node:child_process'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { cleanupAll } from '../../mcp/test/mcp.fixtures.js'
import { startOAuthServers } from '../../mcp/test/oauth.fixtures.js'
import { BIN, cleanEnv, type Finished, sampleWorkspace, scratch } from './cli-harness.js'
import { fakeModel, toolMessage } from './fake-model.js'

afterEach(cleanupAll)

/**
 * `tooltx run --yes --mcp <url>` as a user runs it, playing the user's browser: when the CLI
 * prints the authorization URL, it is opened (its redirects followed to the CLI's listener).
 */
function runAuthorizing(
  cwd: string,
  env: NodeJS.ProcessEnv,
  ...args: string[]
): Promise<Finished & { opened: number }> {
  const child = spawn(process.execPath, [BIN, 'run', 'who am i', '--workspace', cwd, '--yes', ...args], {
    cwd,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  let opened = 0
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk
  })
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk
    // Each authorization URL printed so far, opened once.
    const urls = [...stderr.matchAll(/Open this URL in your browser:\n {2}(\S+)\n/g)].map((m) => m[1]!)
    for (const url of urls.slice(opened)) void fetch(url).then((r) => r.text())
    opened = urls.length
  })
  return new Promise((resolve) =>
    child.on('exit', (code) => resolve({ code: code ?? -1, stdout, stderr, opened })),
  )
}

describe('Y5 tooltx run --mcp <url> with OAuth', () => {
  it('Y5.20, Y5.18, Y5.19: prints the URL, waits on the loopback listener, keeps the tokens in a 0600 file and never in the session log', async () => {
    const servers = await startOAuthServers()
    const cwd = sampleWorkspace()
    const home = scratch()
    const db = path.join(scratch(), 'sessions.db')
    const env = cleanEnv({ OPENAI_API_KEY: 'k', XDG_CONFIG_HOME: home })
    const replies = () => [
      { toolCalls: [{ id: 'call_who', name: 'mcp__protected__whoami', arguments: '{}' }] },
      { text: 'You are the tooltx CLI.' },
    ]
    const model = await fakeModel(replies())
    const first = await runAuthorizing(
      cwd,
      env,
      '--base-url',
      model.baseURL,
      '--db',
      db,
      '--mcp',
      `protected=${servers.mcp.href}`,
    )
    expect(first.code).toBe(0)
    expect(first.opened).toBe(1)
    expect(first.stderr).toContain('MCP server "protected" asks you to authorize tooltx.')
    expect(toolMessage(model, 'call_who')).toMatch(/^client \S+ scope mcp:tools$/)

    const file = path.join(home, 'tooltx', 'mcp-oauth.json')
    expect(statSync(file).mode & 0o777).toBe(0o600)
    const record = JSON.parse(readFileSync(file, 'utf8'))[servers.mcp.href]
    const secrets: string[] = [record.tokens.access_token, record.tokens.refresh_token]
    expect(secrets.every((s) => typeof s === 'string' && s.length >= 20)).toBe(true)
    const logged = [first.stdout, first.stderr]
    for (const name of readdirSync(path.dirname(db)))
      logged.push(readFileSync(path.join(path.dirname(db), name), 'latin1'))
    expect(logged.join('\n')).toContain('mcp__protected__whoami')
    for (const secret of secrets) expect(logged.join('\n')).not.toContain(secret)

    // The next run finds the tokens in the file: nobody is asked.
    const again = await fakeModel(replies())
    const second = await runAuthorizing(
      cwd,
      env,
      '--base-url',
      again.baseURL,
      '--db',
      db,
      '--mcp',
      `protected=${servers.mcp.href}`,
    )
    expect(second.code).toBe(0)
    expect(second.opened).toBe(0)
    expect(second.stderr).not.toContain('authorize')
    expect(toolMessage(again, 'call_who')).toMatch(/^client \S+ scope mcp:tools$/)
  })
})
