/**
 * Y6.3: the task store contract, the same for the memory store and the PostgreSQL one (a real
 * database at TOOLTX_TEST_PG): conditional moves, one terminal state, leases and take-overs.
 */
import { randomUUID } from 'node:crypto'
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import { POSTGRES_URL, requirePostgresInCi } from '../../worker/test/postgres.js'
import { memoryTaskStore, postgresTaskStore, type TaskRecord, type TaskStore } from '../src/index.js'

requirePostgresInCi('Y6.3 on PostgreSQL')

const table = `tasks_${randomUUID().replaceAll('-', '').slice(0, 12)}`
const pgStore = POSTGRES_URL === undefined ? undefined : postgresTaskStore(POSTGRES_URL, { table })
afterAll(async () => {
  if (pgStore === undefined) return
  const pg = await import('pg')
  const client = new pg.default.Client({ connectionString: POSTGRES_URL })
  await client.connect()
  await client.query(`DROP TABLE IF EXISTS ${table}`)
  await client.end()
  await pgStore.close()
})

const record = (over: Partial<TaskRecord> = {}): TaskRecord => ({
  taskId: randomUUID(),
  status: 'working',
  tool: 'sum',
  arguments: '{"a":1,"b":12345678901234567890}',
  callId: 'mcp_1',
  session: 'sess',
  createdAt: new Date().toISOString(),
  lastUpdatedAt: new Date().toISOString(),
  ttl: null,
  pollInterval: 100,
  owner: 'a',
  leaseUntil: Date.now() + 60_000,
  runs: 1,
  ...over,
})

const stores: [string, () => TaskStore][] = [['memory', memoryTaskStore]]
if (pgStore !== undefined) stores.push(['postgres', () => pgStore])

describe.each(stores)('Y6.3 task store (%s)', (_kind, make) => {
  it('Y6.3: a record reads back exactly; moves need the owner and stop at the first terminal state', async () => {
    const store = make()
    const r = record()
    await store.create(r)
    expect(await store.get(r.taskId)).toEqual(r)
    await expect(store.create(r)).rejects.toThrow()
    const at = new Date().toISOString()
    expect(
      await store.move(r.taskId, { status: 'input_required', statusMessage: 'asking' }, at, 'b'),
    ).toBeUndefined()
    expect(
      await store.move(r.taskId, { status: 'input_required', statusMessage: 'asking' }, at, 'a'),
    ).toMatchObject({
      status: 'input_required',
      statusMessage: 'asking',
      lastUpdatedAt: at,
    })
    expect(
      await store.move(r.taskId, { status: 'completed', result: '{"content":[]}' }, at, 'a'),
    ).toMatchObject({
      status: 'completed',
      result: '{"content":[]}',
    })
    expect((await store.get(r.taskId))?.statusMessage).toBeUndefined()
    expect(await store.move(r.taskId, { status: 'cancelled' }, at)).toBeUndefined()
    expect(await store.renew(r.taskId, 'a', Date.now() + 1_000)).toBe(false)
    expect(await store.get('missing')).toBeUndefined()
  })

  it('Y6.3, Y6.8: a lease is renewed only by its owner and taken over only once it lapsed', async () => {
    const store = make()
    const now = Date.now()
    const r = record({ leaseUntil: now + 1_000 })
    await store.create(r)
    expect(await store.renew(r.taskId, 'b', now + 5_000)).toBe(false)
    expect(await store.claim(r.taskId, 'b', now, now + 5_000)).toBeUndefined()
    expect(await store.renew(r.taskId, 'a', now + 2_000)).toBe(true)
    const taken = await store.claim(r.taskId, 'b', now + 3_000, now + 9_000)
    expect(taken).toMatchObject({ owner: 'b', leaseUntil: now + 9_000, runs: 2 })
    // Only one of two instances racing for the same lapsed lease wins it.
    const later = now + 20_000
    const [x, y] = await Promise.all([
      store.claim(r.taskId, 'c', later, later + 1_000),
      store.claim(r.taskId, 'd', later, later + 1_000),
    ])
    expect([x, y].filter((t) => t !== undefined)).toHaveLength(1)
    await store.remove(r.taskId)
    expect(await store.get(r.taskId)).toBeUndefined()
  })

  it('Y6.3: of any sequence of moves, each lands up to the first terminal one, and that one is final', async () => {
    const store = make()
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.constantFrom('completed', 'failed', 'cancelled', 'working') as fc.Arbitrary<
            TaskRecord['status']
          >,
          {
            minLength: 1,
            maxLength: 5,
          },
        ),
        async (statuses) => {
          const r = record()
          await store.create(r)
          const landed: boolean[] = []
          for (const status of statuses)
            landed.push((await store.move(r.taskId, { status }, new Date().toISOString())) !== undefined)
          const first = statuses.findIndex((s) => s !== 'working')
          // Every move lands until the first terminal one, which lands too; none after it.
          expect(landed).toEqual(statuses.map((_s, i) => first < 0 || i <= first))
          expect((await store.get(r.taskId))?.status).toBe(first < 0 ? 'working' : statuses[first])
          await store.remove(r.taskId)
        },
      ),
      { numRuns: 20 },
    )
  })
})

describe('Y6.3 postgresTaskStore options', () => {
  it('Y6.3: a bad table name throws INVALID_DEFINITION', () => {
    expect(() => postgresTaskStore('postgres://x', { table: 'Bad-Name' })).toThrow(
      /postgresTaskStore: table must be a lowercase SQL name/,
    )
  })
})
