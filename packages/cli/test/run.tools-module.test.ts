/**
 * `tooltx run --tools` as real processes (needs `npm run build`) against the loopback fake
 * model: the module's tools are offered instead of the workspace tools, its own guard and the
 * CLI's boundary guard both judge the calls, and a module that fails to load says where.
 */
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { cleanEnv, sampleWorkspace, scratch, tooltxWith } from './cli-harness.js'
import { fakeModel, toolMessage } from './fake-model.js'

const ORDERS = fileURLToPath(new URL('./fixtures/tools/orders.mjs', import.meta.url))

/** `tooltx run --tools <module>` in `cwd` against the fake model at `baseURL`, with no key. */
function run(cwd: string, baseURL: string, module: string) {
  return tooltxWith(
    { cwd, env: cleanEnv() },
    'run',
    'where is my order?',
    '--base-url',
    baseURL,
    '--tools',
    module,
  )
}

describe('K6 tooltx run --tools', () => {
  it("K6.1, K6.2: the model is offered the module's tools only; its guard and the boundary guard both deny", async () => {
    const cwd = sampleWorkspace()
    const call = (id: string, orderId: string) => ({
      id,
      name: 'order_status',
      arguments: JSON.stringify({ id: orderId }),
    })
    const model = await fakeModel([
      {
        toolCalls: [
          call('c1', 'A-17'),
          call('c2', 'vip-9'),
          call('c3', '.env'),
          call('c4', '../elsewhere'),
          { id: 'c5', name: 'cancel_order', arguments: '{"id":"A-17"}' },
        ],
      },
      { text: 'order A-17 has shipped.' },
    ])
    const result = await run(cwd, model.baseURL, ORDERS)
    expect(result.code).toBe(0)
    expect(result.stdout).toContain(`tools of ${ORDERS}: order_status, cancel_order\n`)
    const offered = (model.requests[0] as unknown as { tools: { function: { name: string } }[] }).tools
    expect(offered.map((t) => t.function.name).sort()).toEqual(['cancel_order', 'order_status'])
    expect(toolMessage(model, 'c1')).toContain('order A-17 has shipped')
    expect(toolMessage(model, 'c2')).toContain(
      'tool "order_status" denied by guard: VIP orders are looked up by a person',
    )
    expect(toolMessage(model, 'c3')).toContain('".env" holds secrets')
    expect(toolMessage(model, 'c4')).toContain('"../elsewhere" is outside the workspace')
    // The module's ask is put as a write's is: no terminal and no --yes, so it is refused.
    expect(toolMessage(model, 'c5')).toContain('the approval channel is unavailable')
    expect(result.stderr).toContain('tooltx: cancel_order needs approval, but no one could be asked')
  })

  it('K6.3: a module that registers no tools is a usage error before any model request', async () => {
    const cwd = scratch()
    writeFileSync(path.join(cwd, 'tools.mjs'), 'export default () => []\n')
    const model = await fakeModel([])
    expect(await run(cwd, model.baseURL, 'tools.mjs')).toMatchObject({
      code: 2,
      stderr:
        'tooltx: the tools module tools.mjs registered no tools, so there is nothing to offer the model\n',
    })
    expect(model.requests).toHaveLength(0)
  })

  const failures = [
    {
      title: 'K6.3: a syntax error says the file, line and column, and exits 2',
      source: 'export default [\n  { name: "x" }\n  oops here\n]\n',
      place: (file: string) => `${file}:3:3: Unexpected identifier 'oops'`,
    },
    {
      title: 'K6.3: an input that ends early says the end of its last line, and exits 2',
      source: 'export default [\n  { name: "x" },\n',
      place: (file: string) => `${file}:3:1: Unexpected end of input`,
    },
    {
      title: 'K6.3: an import of a missing file says where the import is, and exits 2',
      source: '// orders\n\nimport { lookup } from "./lookup.mjs"\nexport default [lookup]\n',
      place: (file: string) =>
        `${file}:3:24: Cannot find module '${path.join(path.dirname(file), 'lookup.mjs')}' imported from ${file}`,
    },
    {
      title: 'K6.3: an import of a missing package says where the import is, and exits 2',
      source: 'import "node:fs"\nimport { client } from "no-such-package-k63/client"\nexport default []\n',
      place: (file: string) =>
        `${file}:2:24: Cannot find package 'no-such-package-k63' imported from ${file}`,
    },
    {
      title: 'K6.3: a missing named export says where it is imported, and exits 2',
      source: 'import { nothing } from "node:path"\nexport default [nothing]\n',
      place: (file: string) =>
        `${file}:1:10: The requested module 'node:path' does not provide an export named 'nothing'`,
    },
    {
      title: 'K6.3: a register function that throws says where it threw, and exits 2',
      source: 'export default (runtime) => {\n  // needs a config\n  throw new Error("no config")\n}\n',
      place: (file: string) => `${file}:3:9: no config`,
      registering: true,
    },
  ]
  for (const failure of failures) {
    it(failure.title, async () => {
      const cwd = scratch()
      const file = path.join(cwd, 'tools.mjs')
      writeFileSync(file, failure.source)
      const model = await fakeModel([])
      const result = await run(cwd, model.baseURL, 'tools.mjs')
      const what = failure.registering
        ? 'the tools module tools.mjs threw while registering'
        : 'cannot load the tools module tools.mjs'
      expect(result).toMatchObject({
        code: 2,
        stdout: '',
        stderr: `tooltx: ${what}: ${failure.place(file)}\n`,
      })
      expect(model.requests).toHaveLength(0)
    })
  }
})
