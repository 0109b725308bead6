import { readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { BIN, cleanEnv, sampleWorkspace } from './cli-harness.js'
import { fakeModel } from './fake-model.js'
import { hasTmux, Terminal } from './terminal.js'

function runArgv(ws: string, baseURL: string, ...extra: string[]): string[] {
  return [process.execPath, BIN, 'run', 'tidy up', '--workspace', ws, '--base-url', baseURL, ...extra]
}
const modelEnv = () => cleanEnv({ OPENAI_API_KEY: 'test-key' })

describe.skipIf(!hasTmux())('general workspace tools at a terminal (tmux)', () => {
  it('probe', async () => {
    const ws = sampleWorkspace()
    writeFileSync(path.join(ws, 'hello.txt'), 'one\ntwo\nthree\n')
    const edit = { id: 'call_edit', name: 'edit_file', arguments: JSON.stringify({ path: 'hello.txt', old_text: 'two', new_text: 'TWO' }) }
    const model = await fakeModel([{ toolCalls: [edit] }, { text: 'Edited.' }])
    const term = await Terminal.start(runArgv(ws, model.baseURL), { cwd: ws, env: modelEnv() })
    const asked = await term.waitFor(/Allow edit_file\? \[y\/N\] $/m)
    console.log(asked)
    await term.keys('y', 'Enter')
    const { screen } = await term.exit()
    console.log(screen)
    expect(readFileSync(path.join(ws, 'hello.txt'), 'utf8')).toBe('one\nTWO\nthree\n')
  })
})
