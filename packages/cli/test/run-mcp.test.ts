import { writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { defineTool } from '@tooltx/core'
import { mcpServer, serveHttp } from '@tooltx/mcp'
import { describe, expect, it, onTestFinished } from 'vitest'
import { runtimeWith } from '../../core/test/pipeline.fixtures.js'
import { commandWords, mcpServerSpecs } from '../src/commands/run-mcp.js'
import { UsageError } from '../src/display/output.js'
import { cleanEnv, FIRST_USE_NOTICE, sampleWorkspace, tooltx, tooltxWith } from './cli-harness.js'
import { fakeModel, toolMessage } from './fake-model.js'

const require = createRequire(import.meta.url)
const FILESYSTEM_SERVER = path.join(
  path.dirname(require.resolve('@modelcontextprotocol/server-filesystem/package.json')),
  'dist/index.js',
)

/** `tooltx run` against the fake model at `baseURL`, with `args` after the task. */
function run(cwd: string, baseURL: string, ...args: string[]) {
  return tooltxWith(
    { cwd, env: cleanEnv({ OPENAI_API_KEY: 'k' }) },
    'run',
    'read the readme',
    '--base-url',
    baseURL,
    '--workspace',
    cwd,
    ...args,
  )
}

const savedId = (stdout: string) => /Session saved as (\S+) in/.exec(stdout)?.[1]

describe('Y4 tooltx run --mcp: reading the servers', () => {
  it('Y4.1: a command line splits into words as a shell would for words, quotes and escapes', () => {
    expect(commandWords(`npx -y "@scope/server x" 'a b' c\\ d  e""`)).toEqual([
      'npx',
      '-y',
      '@scope/server x',
      'a b',
      'c d',
      'e',
    ])
    expect(() => commandWords('node "server.js')).toThrow(UsageError)
  })

  it('Y4.1: names come from NAME=, the package or file a launcher runs, or the URL host; repeats are numbered', () => {
    const specs = mcpServerSpecs([
      'npx -y @modelcontextprotocol/server-filesystem@2026.8.31 .',
      'node ./servers/weather-mcp.mjs',
      'node /opt/node_modules/@acme/server-tickets/dist/index.js --port 0',
      'uvx mcp-server-git --repository .',
      'docs=http://127.0.0.1:8848/mcp',
      'https://tools.example.com/mcp',
      'npx @modelcontextprotocol/server-filesystem /tmp',
    ])
    expect(specs.map((s) => s.name)).toEqual([
      'filesystem',
      'weather',
      'tickets',
      'git',
      'docs',
      'tools.example.com',
      'filesystem_2',
    ])
    expect(specs[0]?.connection).toEqual({
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-filesystem@2026.8.31', '.'],
      stderr: 'inherit',
    })
    expect(specs[4]?.connection).toEqual({ url: new URL('http://127.0.0.1:8848/mcp') })
  })

  it('Y4.4: an empty --mcp, an unclosed quote or a bad URL is a usage error (exit 2) saying what to pass', async () => {
    const cwd = sampleWorkspace()
    const model = await fakeModel([])
    const empty = await run(cwd, model.baseURL, '--mcp', '')
    expect(empty.code).toBe(2)
    expect(empty.stderr).toContain('tooltx: --mcp needs a server: a command such as --mcp "npx')
    const quote = await run(cwd, model.baseURL, '--mcp', 'node "x.js')
    expect(quote).toMatchObject({ code: 2, stderr: 'tooltx: --mcp "node "x.js" has an unclosed " quote\n' })
    const url = await run(cwd, model.baseURL, '--mcp', 'http://[oops/mcp')
    expect(url).toMatchObject({ code: 2, stderr: 'tooltx: --mcp "http://[oops/mcp" is not a valid URL\n' })
    expect(model.requests).toHaveLength(0)
  })

  it('Y4.4: a server that cannot be reached fails the run (exit 1) before the model is asked', async () => {
    const cwd = sampleWorkspace()
    const model = await fakeModel([])
    const missing = await run(cwd, model.baseURL, '--mcp', 'fs=tooltx-no-such-server-command --flag')
    expect(missing.code).toBe(1)
    expect(missing.stderr.startsWith(FIRST_USE_NOTICE)).toBe(true)
    expect(missing.stderr.slice(FIRST_USE_NOTICE.length)).toMatch(
      /^tooltx: --mcp "fs=tooltx-no-such-server-command --flag": cannot connect to the MCP server: .*ENOENT/,
    )
    expect(model.requests).toHaveLength(0)
  })
})

describe('Y4 tooltx run --mcp: a recorded, replayable run', () => {
  it('Y4.2, Y4.3, K2.31: the filesystem server over stdio: its tools reach the model, calls go through the CLI policy, replay names the server, and its stderr goes to its log', async () => {
    const cwd = sampleWorkspace()
    writeFileSync(path.join(cwd, '.env'), 'SECRET=1\n')
    const model = await fakeModel([
      {
        toolCalls: [
          {
            id: 'call_fs',
            name: 'mcp__filesystem__read_text_file',
            arguments: JSON.stringify({ path: path.join(cwd, 'README.md') }),
          },
          {
            id: 'call_env',
            name: 'mcp__filesystem__read_text_file',
            arguments: JSON.stringify({ path: path.join(cwd, '.env') }),
          },
        ],
      },
      { text: 'The README describes the inventory service.' },
    ])
    const done = await run(cwd, model.baseURL, '--yes', '--mcp', `node ${FILESYSTEM_SERVER} ${cwd}`)
    expect(done.code).toBe(0)
    expect(done.stdout).toMatch(
      /\nMCP server "filesystem": \d+ tools as mcp__filesystem__<tool>; its stderr goes to \.tooltx\/mcp-filesystem\.log\n/,
    )
    // K2.31: what the server says on stderr is in its log, not between the timeline's lines.
    const { readFileSync: readLog } = await import('node:fs')
    expect(readLog(path.join(cwd, '.tooltx/mcp-filesystem.log'), 'utf8')).toMatch(/\S/)
    expect(done.stderr).toBe(FIRST_USE_NOTICE)
    const offered = (model.requests[0] as unknown as { tools: { function: { name: string } }[] }).tools.map(
      (t) => t.function.name,
    )
    expect(offered).toEqual(expect.arrayContaining(['read_file', 'mcp__filesystem__read_text_file']))
    const { readFileSync } = await import('node:fs')
    expect(toolMessage(model, 'call_fs')).toBe(readFileSync(path.join(cwd, 'README.md'), 'utf8'))
    // The CLI's secrets guard sees the imported tool's `path` as it sees read_file's.
    expect(toolMessage(model, 'call_env')).toContain('holds secrets')

    const id = savedId(done.stdout)
    expect(id).toMatch(/^run-/)
    const replay = await tooltx(cwd, 'replay', id!)
    expect(replay.code).toBe(0)
    expect(replay.stdout).toContain('mcp__filesystem__read_text_file')
    expect(replay.stdout).toContain('The README describes the inventory service.')
  })

  it('Y4.3: without a terminal and without --yes, an MCP call is refused as unavailable and stderr says how to allow it', async () => {
    const cwd = sampleWorkspace()
    const model = await fakeModel([
      {
        toolCalls: [
          {
            id: 'call_fs',
            name: 'mcp__fs__list_allowed_directories',
            arguments: '{}',
          },
        ],
      },
      { text: 'Nothing was allowed.' },
    ])
    const done = await run(cwd, model.baseURL, '--mcp', `fs=node ${FILESYSTEM_SERVER} ${cwd}`)
    expect(done.code).toBe(0)
    expect(toolMessage(model, 'call_fs')).toBe(
      'Error: tool "mcp__fs__list_allowed_directories" requires approval, but the approval channel is unavailable',
    )
    expect(done.stderr).toContain(
      'tooltx: mcp__fs__list_allowed_directories needs approval, but no one could be asked',
    )
  })

  it('Y4.2: a URL is reached over Streamable HTTP; a served failure keeps its code and text', async () => {
    const runtime = runtimeWith(
      defineTool({
        name: 'forecast',
        description: 'The weather forecast of a city.',
        parameters: { city: { type: 'string', required: true, maxLength: 20 } },
        execute: async ({ city }) => ({ city, sky: 'clear' }),
      }),
    )
    const server = mcpServer(runtime, { name: 'weather', version: '1.0.0' })
    const endpoint = await serveHttp(server)
    onTestFinished(async () => {
      await endpoint.close()
      await server.close()
    })
    const cwd = sampleWorkspace()
    const model = await fakeModel([
      {
        toolCalls: [
          { id: 'call_ok', name: 'mcp__weather__forecast', arguments: '{"city":"Oslo"}' },
          { id: 'call_bad', name: 'mcp__weather__forecast', arguments: `{"city":"${'x'.repeat(21)}"}` },
        ],
      },
      { text: 'Clear in Oslo.' },
    ])
    const done = await run(cwd, model.baseURL, '--yes', '--mcp', `weather=${endpoint.url.href}`)
    expect(done.code).toBe(0)
    expect(toolMessage(model, 'call_ok')).toBe('{"city":"Oslo","sky":"clear"}')
    expect(toolMessage(model, 'call_bad')).toBe(
      'Error: invalid arguments: "city" must have at most 20 characters',
    )
  })
})
