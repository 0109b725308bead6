/**
 * `tooltx worker --tools` as real processes (needs `npm run build` and PostgreSQL): the worker
 * offers the module's tools, under the module's guard and the CLI's boundary guard.
 */
import { randomUUID } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import { describe, expect, it, onTestFinished } from 'vitest'
import { POSTGRES_URL } from '../../worker/test/postgres.js'
import { cleanEnv, tooltxWith } from './cli-harness.js'
import { fakeModel, toolMessage } from './fake-model.js'
import { lastRole, startWorker } from './worker-processes.js'

const ORDERS = fileURLToPath(new URL('./fixtures/tools/orders.mjs', import.meta.url))

describe('K6 tooltx worker --tools', () => {
  it('K6.3: a module that fails to load stops the worker before it connects, saying where (exit 2)', async () => {
    const result = await tooltxWith(
      { cwd: '.', env: cleanEnv() },
      'worker',
      '--db',
      'postgres://nobody@127.0.0.1:1/none',
      '--base-url',
      'http://127.0.0.1:1/v1',
      '--tools',
      'no-such-tools.mjs',
    )
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(
      /^tooltx: cannot load the tools module no-such-tools\.mjs: there is no file /,
    )
  })

  it.skipIf(POSTGRES_URL === undefined)(
    "K6.1, K6.2: a worker runs a submitted turn with the module's tools, its guard and the boundary guard",
    async () => {
      const db = POSTGRES_URL!
      const queue = `q-${randomUUID().slice(0, 8)}`
      const session = `tools-${randomUUID().slice(0, 8)}`
      const model = await fakeModel((request) =>
        lastRole(request) === 'tool'
          ? { text: 'done.' }
          : {
              toolCalls: [
                { id: 'w1', name: 'order_status', arguments: '{"id":"A-17"}' },
                { id: 'w2', name: 'order_status', arguments: '{"id":"vip-9"}' },
                { id: 'w3', name: 'order_status', arguments: '{"id":".env"}' },
              ],
            },
      )
      const worker = startWorker({ db, queue, baseURL: model.baseURL, flags: ['--tools', ORDERS] })
      onTestFinished(() => {
        if (worker.proc.exitCode === null) worker.proc.kill('SIGKILL')
      })
      await worker.waitFor((line) => line === `tools of ${ORDERS}: order_status, cancel_order`)
      const submitted = await tooltxWith(
        { cwd: '.', env: cleanEnv() },
        'submit',
        session,
        'where is my order?',
        '--db',
        db,
        '--queue',
        queue,
      )
      expect(submitted.code).toBe(0)
      await worker.waitFor((line) => line.endsWith(`${session}: done (fresh)`))
      worker.proc.kill('SIGTERM')
      expect(await worker.exited).toBe(0)
      const offered = (model.requests[0] as unknown as { tools: { function: { name: string } }[] }).tools
      expect(offered.map((t) => t.function.name).sort()).toEqual(['cancel_order', 'order_status'])
      expect(toolMessage(model, 'w1')).toContain('order A-17 has shipped')
      expect(toolMessage(model, 'w2')).toContain('denied by guard: VIP orders are looked up by a person')
      expect(toolMessage(model, 'w3')).toContain('".env" holds secrets')
    },
  )
})
