/**
 * `tooltx run --mcp`: what a server sends the person (Y4.7–Y4.9). Real server processes over
 * stdio (a tooltx server whose `ask` fills a form of its own and whose `chatty` logs; an
 * official-SDK server answering its roots), a fake model, and a real terminal through tmux.
 */
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { BIN, cleanEnv, sampleWorkspace, tooltxWith } from './cli-harness.js'
import { fakeModel, toolMessage } from './fake-model.js'
import { hasTmux, Terminal } from './terminal.js'

const mcpFixture = (name: string) =>
  fileURLToPath(new URL(`../../mcp/test/fixtures/${name}`, import.meta.url))
const FORMS = `forms=node ${mcpFixture('forms-server.mjs')}`
const FORM = {
  message: 'Which colour?',
  requestedSchema: {
    type: 'object',
    properties: {
      colour: { type: 'string', enum: ['red', 'blue'] },
      count: { type: 'integer', default: 2 },
    },
    required: ['colour'],
  },
}
const COMPLETE_CALL = {
  id: 'call_complete',
  name: 'mcp__forms__complete',
  arguments: '{"prompt":"Name a colour."}',
}
const ASK_CALL = {
  id: 'call_ask',
  name: 'mcp__forms__ask',
  arguments: JSON.stringify({ form: JSON.stringify(FORM) }),
}

/** The argv of `tooltx run --yes` against `baseURL` in `cwd`, with `extra` after it. */
const runArgv = (cwd: string, baseURL: string, ...extra: string[]) => [
  'run',
  'use the server',
  '--base-url',
  baseURL,
  '--workspace',
  cwd,
  '--yes',
  ...extra,
]
const env = () => cleanEnv({ OPENAI_API_KEY: 'k' })

describe('Y4 tooltx run --mcp: the person at the other end', () => {
  it('Y4.7: without a terminal a server question is cancelled and stderr says no one could be asked', async () => {
    const cwd = sampleWorkspace()
    const model = await fakeModel([{ toolCalls: [ASK_CALL] }, { text: 'No answer.' }])
    const done = await tooltxWith({ cwd, env: env() }, ...runArgv(cwd, model.baseURL, '--mcp', FORMS))
    expect(done.code).toBe(0)
    expect(toolMessage(model, 'call_ask')).toBe('{"action":"cancel"}')
    expect(done.stderr).toContain(
      'tooltx: the MCP server "forms" asks: Which colour? — but no one could be asked (stdin or stdout is not a terminal), so the question was cancelled',
    )
  })

  it('Y4.10 Y4.11: without a terminal a server request for a completion is refused even with --yes, saying so, and the model is not asked', async () => {
    const cwd = sampleWorkspace()
    const model = await fakeModel([{ toolCalls: [COMPLETE_CALL] }, { text: 'Refused.' }])
    const done = await tooltxWith({ cwd, env: env() }, ...runArgv(cwd, model.baseURL, '--mcp', FORMS))
    expect(done.code).toBe(0)
    expect(toolMessage(model, 'call_complete')).toContain(
      'the sampling request of the MCP server "forms" was refused: the approver answered unavailable',
    )
    expect(done.stderr).toContain(
      'asks openai-compatible:gpt-5.4-mini for a completion (at most 50 tokens) — but no one could allow it (stdin or stdout is not a terminal), so it was refused',
    )
    expect(model.requests).toHaveLength(2)
  })

  it('Y4.8: a server log message shows on the timeline at its level', async () => {
    const cwd = sampleWorkspace()
    const model = await fakeModel([
      { toolCalls: [{ id: 'call_chatty', name: 'mcp__forms__chatty', arguments: '{}' }] },
      { text: 'Logged.' },
    ])
    const done = await tooltxWith({ cwd, env: env() }, ...runArgv(cwd, model.baseURL, '--mcp', FORMS))
    expect(done.code).toBe(0)
    expect(done.stdout).toContain('    · MCP server "forms" warning: {"disk":"almost full"}\n')
    expect(done.stdout).toContain('    · MCP server "forms" debug: details\n')
  })

  it('Y4.9: every server gets the workspace as its one root', async () => {
    const cwd = sampleWorkspace()
    const model = await fakeModel([
      { toolCalls: [{ id: 'call_roots', name: 'mcp__roots__roots', arguments: '{}' }] },
      { text: 'Listed.' },
    ])
    const done = await tooltxWith(
      { cwd, env: env() },
      ...runArgv(cwd, model.baseURL, '--mcp', `roots=node ${mcpFixture('roots-server.mjs')}`),
    )
    expect(done.code).toBe(0)
    const roots = JSON.parse(toolMessage(model, 'call_roots') as string) as { uri: string; name: string }[]
    expect(roots).toEqual([{ uri: new URL(`file://${cwd}`).href, name: cwd.split('/').at(-1) }])
  })
})

describe.skipIf(!hasTmux())('Y4 tooltx run --mcp at a terminal (tmux)', () => {
  it('Y4.7 Y4.12: a server question is asked field by field; Enter keeps a default, an answer that does not fit asks again; replay shows it, without the values', async () => {
    const cwd = sampleWorkspace()
    const model = await fakeModel([{ toolCalls: [ASK_CALL] }, { text: 'Red it is.' }])
    const term = await Terminal.start(
      [process.execPath, BIN, ...runArgv(cwd, model.baseURL, '--mcp', FORMS)],
      {
        cwd,
        env: env(),
      },
    )
    await term.waitFor(/┌ the MCP server "forms" asks: Which colour\?\n.*│ Answer\? \[y\/N\] $/m)
    await term.keys('y', 'Enter')
    await term.waitFor(/│ colour \(1=red, 2=blue\): $/m)
    await term.keys('green', 'Enter')
    await term.waitFor(/│ colour \(1=red, 2=blue\): green\n.*│ colour \(1=red, 2=blue\): $/m)
    await term.keys('1', 'Enter')
    await term.waitFor(/│ count \(integer; Enter for 2\): $/m)
    await term.keys('Enter')
    const { code, screen } = await term.exit()
    expect(code).toBe(0)
    expect(screen).toContain('└ answered')
    expect(JSON.parse(toolMessage(model, 'call_ask') as string)).toEqual({
      action: 'accept',
      content: { colour: 'red', count: 2 },
    })
    const replay = await tooltxWith({ cwd, env: env() }, 'replay', 'latest')
    expect(replay.stdout).toContain(
      '    ⇄ MCP server "forms" asked "Which colour?" (fields colour, count) during call call_ask: accept by the person (answered colour)',
    )
    // The record names the fields answered, never their values (the tool's own result shows those).
    expect(replay.stdout.split('\n').filter((line) => line.includes('⇄'))).toHaveLength(1)
  })

  it('Y4.10 Y4.11 Y4.12: a completion is allowed at the terminal after it shows what is sent and to which model (--yes does not allow it), answered by the run model, and recorded for replay', async () => {
    const cwd = sampleWorkspace()
    const model = await fakeModel([
      { toolCalls: [COMPLETE_CALL] },
      { text: 'Teal.' },
      { text: 'The server got teal.' },
    ])
    const term = await Terminal.start(
      [process.execPath, BIN, ...runArgv(cwd, model.baseURL, '--mcp', FORMS)],
      {
        cwd,
        env: env(),
      },
    )
    await term.waitFor(
      /asks openai-compatible:gpt-5\.4-mini for a completion \(at most 50 tokens\), sending:\n.*│ system: Be brief\.\n.*│ user: Name a colour\.\n.*└ Allow\? \[y\/N\] $/m,
    )
    await term.keys('y', 'Enter')
    const { code, screen } = await term.exit()
    expect(code).toBe(0)
    const line =
      '⇄ MCP server "forms" asked openai-compatible:gpt-5.4-mini for a completion (1 message, 14 characters, at most 50 tokens) during call call_complete: answered, allowed by the approver: "Teal."'
    expect(screen.replace(/\n\s*/g, ' ')).toContain(line)
    expect(JSON.parse(toolMessage(model, 'call_complete') as string)).toEqual({
      model: 'openai-compatible:gpt-5.4-mini',
      text: 'Teal.',
    })
    // The server's request went out bounded and without tools.
    expect(model.requests[1]).toMatchObject({ max_tokens: 50 })
    expect(model.requests[1]).not.toHaveProperty('tools')
    const sampling = model.requests[1]!.messages
    expect(sampling.at(-1)).toMatchObject({ role: 'user', content: 'Name a colour.' })
    const replay = await tooltxWith({ cwd, env: env() }, 'replay', 'latest')
    expect(replay.stdout).toContain(`    ${line}`)
  })

  it('Y4.10 Y4.12: a completion refused at the terminal never reaches the model, and replay shows the refusal', async () => {
    const cwd = sampleWorkspace()
    const model = await fakeModel([{ toolCalls: [COMPLETE_CALL] }, { text: 'Refused.' }])
    const term = await Terminal.start(
      [process.execPath, BIN, ...runArgv(cwd, model.baseURL, '--mcp', FORMS)],
      {
        cwd,
        env: env(),
      },
    )
    await term.waitFor(/└ Allow\? \[y\/N\] $/m)
    await term.keys('n', 'Enter')
    expect((await term.exit()).code).toBe(0)
    expect(model.requests).toHaveLength(2)
    const replay = await tooltxWith({ cwd, env: env() }, 'replay', 'latest')
    expect(replay.stdout).toContain(
      '⇄ MCP server "forms" asked openai-compatible:gpt-5.4-mini for a completion (1 message, 14 characters, at most 50 tokens) during call call_complete: refused by the approver: the approver answered rejected',
    )
  })
})
