/**
 * P4.11 at the terminal: `tooltx run` never prompts about a call whose tool the run does not
 * offer, even when a `--tools` policy asks about it; the model reads `unknown tool`.
 */
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { BIN, cleanEnv, sampleWorkspace } from './cli-harness.js'
import { fakeModel, toolMessage } from './fake-model.js'
import { hasTmux, Terminal } from './terminal.js'

describe.skipIf(!hasTmux())('tooltx run and an ask about an unknown tool (tmux)', () => {
  it('P4.11, K2.1: a policy asking about a tool the run does not offer puts no prompt on the terminal; the call fails UNKNOWN_TOOL', async () => {
    const ws = sampleWorkspace()
    const policy = fileURLToPath(new URL('./fixtures/tools/ask-ghost.mjs', import.meta.url))
    const model = await fakeModel([
      { toolCalls: [{ id: 'call_ghost', name: 'ghost', arguments: '{}' }] },
      { text: 'No ghost here.' },
    ])
    const argv = [
      process.execPath,
      BIN,
      'run',
      'find the ghost',
      '--workspace',
      ws,
      '--base-url',
      model.baseURL,
    ]
    const term = await Terminal.start([...argv, '--tools', policy], {
      cwd: ws,
      env: cleanEnv({ OPENAI_API_KEY: 'test-key' }),
    })
    const { code, screen } = await term.exit()
    expect(code).toBe(0)
    expect(screen).toContain('── turn 1 completed ──')
    expect(screen).not.toContain('Allow ghost?')
    expect(screen).not.toContain('approval asked')
    expect(toolMessage(model, 'call_ghost')).toBe('Error: unknown tool "ghost"')
  })
})
