/**
 * `tooltx run` answers the forms tool bodies ask with `run.elicit` (K2.32, K2.33): at a terminal
 * (a real one, through tmux) field by field, without one cancelled with a reason the body reads.
 * Real processes (needs `npm run build`) against the loopback fake model.
 */
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { BIN, cleanEnv, sampleWorkspace, tooltxWith } from './cli-harness.js'
import { fakeModel, toolMessage } from './fake-model.js'
import { hasTmux, Terminal } from './terminal.js'

const FORMS = fileURLToPath(new URL('./fixtures/tools/forms.mjs', import.meta.url))
const DEPLOY = { id: 'call_deploy', name: 'deploy', arguments: '{}' }

/** The argv of `tooltx run --tools forms.mjs` against `baseURL` in `cwd`. */
const runArgv = (cwd: string, baseURL: string) => [
  'run',
  'deploy it',
  '--base-url',
  baseURL,
  '--workspace',
  cwd,
  '--tools',
  FORMS,
]

describe('K2.33 tooltx run without a terminal', () => {
  it('K2.33 a body form is cancelled with a reason the body reads, and stderr says no one could be asked', async () => {
    const cwd = sampleWorkspace()
    const model = await fakeModel([{ toolCalls: [DEPLOY] }, { text: 'Not deployed.' }])
    const done = await tooltxWith({ cwd, env: cleanEnv() }, ...runArgv(cwd, model.baseURL))
    expect(done.code).toBe(0)
    expect(JSON.parse(toolMessage(model, 'call_deploy') as string)).toEqual({
      action: 'cancel',
      reason: 'no one could be asked (stdin or stdout is not a terminal)',
    })
    expect(done.stderr).toContain(
      'tooltx: the tool deploy asks: Deploy where? — but no one could be asked (stdin or stdout is not a terminal), so the question was cancelled',
    )
  })
})

describe.skipIf(!hasTmux())('K2.32 tooltx run at a terminal (tmux)', () => {
  it('K2.32 a body form is asked field by field at the terminal; an answer breaking a rule of its field asks again', async () => {
    const cwd = sampleWorkspace()
    const model = await fakeModel([{ toolCalls: [DEPLOY] }, { text: 'Deployed.' }])
    const term = await Terminal.start([process.execPath, BIN, ...runArgv(cwd, model.baseURL)], {
      cwd,
      env: cleanEnv(),
    })
    await term.waitFor(/┌ the tool deploy asks: Deploy where\?\n.*│ Answer\? \[y\/N\] $/m)
    await term.keys('y', 'Enter')
    await term.waitFor(/│ Region \(1=eu, 2=us\): $/m)
    await term.keys('2', 'Enter')
    await term.waitFor(/│ replicas \(integer; Enter for 2\): $/m)
    await term.keys('12', 'Enter')
    // 12 is an integer, but above the field's maximum: the terminal says so and asks again.
    await term.waitFor(/│ replicas must be at most 9\n.*│ replicas \(integer; Enter for 2\): $/m)
    await term.keys('3', 'Enter')
    const { code, screen } = await term.exit()
    expect(code).toBe(0)
    expect(screen).toContain('└ answered')
    expect(JSON.parse(toolMessage(model, 'call_deploy') as string)).toEqual({
      action: 'accept',
      content: { region: 'us', replicas: 3 },
    })
  })

  it('K2.32 Enter keeps a default, and a decline reaches the body as decline', async () => {
    const cwd = sampleWorkspace()
    const model = await fakeModel([
      { toolCalls: [DEPLOY] },
      { toolCalls: [{ ...DEPLOY, id: 'call_again' }] },
      { text: 'ok' },
    ])
    const term = await Terminal.start([process.execPath, BIN, ...runArgv(cwd, model.baseURL)], {
      cwd,
      env: cleanEnv(),
    })
    await term.waitFor(/│ Answer\? \[y\/N\] $/m)
    await term.keys('y', 'Enter')
    await term.waitFor(/│ Region \(1=eu, 2=us\): $/m)
    await term.keys('eu', 'Enter')
    await term.waitFor(/│ replicas \(integer; Enter for 2\): $/m)
    await term.keys('Enter')
    await term.waitFor(/└ answered[\s\S]*│ Answer\? \[y\/N\] $/m)
    await term.keys('n', 'Enter')
    const { code } = await term.exit()
    expect(code).toBe(0)
    expect(JSON.parse(toolMessage(model, 'call_deploy') as string)).toEqual({
      action: 'accept',
      content: { region: 'eu' },
    })
    expect(JSON.parse(toolMessage(model, 'call_again') as string)).toEqual({ action: 'decline' })
  })
})
