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

  it('Y6.24: answers land only while a task is input_required and add to the earlier ones, never replacing one; a move clears the requests, not the answers', async () => {
    const store = make()
    const r = record()
    await store.create(r)
    expect(await store.answer(r.taskId, '{"k1":{"action":"decline"}}')).toBe(false)
    const at = new Date().toISOString()
    const requests = '{"k1":{"method":"elicitation/create","params":{}}}'
    expect(
      await store.move(r.taskId, { status: 'input_required', inputRequests: requests }, at, 'a'),
    ).toMatchObject({
      inputRequests: requests,
    })
    expect(await store.answer(r.taskId, '{"k1":{"action":"decline"}}')).toBe(true)
    expect(await store.answer(r.taskId, '{"k2":{"action":"accept","content":{"n":1}}}')).toBe(true)
    // A key answered before keeps its first answer.
    expect(await store.answer(r.taskId, '{"k1":{"action":"cancel"}}')).toBe(true)
    const answered = await store.get(r.taskId)
    expect(JSON.parse(answered!.inputResponses!)).toEqual({
      k1: { action: 'decline' },
      k2: { action: 'accept', content: { n: 1 } },
    })
    const working = await store.move(r.taskId, { status: 'working' }, at, 'a')
    expect(working?.inputRequests).toBeUndefined()
    expect(JSON.parse(working!.inputResponses!)).toHaveProperty('k2')
    expect(await store.answer('missing', '{}')).toBe(false)
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

describe.runIf(POSTGRES_URL !== undefined)('Y6.3 postgresTaskStore on a table of an earlier version', () => {
  it('Y6.3: a table without the input columns gains them on first use and keeps its tasks', async () => {
    const pg = await import('pg')
    const client = new pg.default.Client({ connectionString: POSTGRES_URL })
    await client.connect()
    const old = `tasks_old_${randomUUID().replaceAll('-', '').slice(0, 12)}`
    try {
      await client.query(`CREATE TABLE ${old} (
        task_id text PRIMARY KEY, status text NOT NULL, status_message text, tool text NOT NULL,
        arguments text NOT NULL, call_id text NOT NULL, mcp_session text, result text,
        created_at text NOT NULL, last_updated_at text NOT NULL, ttl bigint,
        poll_interval integer NOT NULL, owner text NOT NULL, lease_until bigint NOT NULL,
        runs integer NOT NULL)`)
      await client.query(
        `INSERT INTO ${old} VALUES ('t1', 'working', NULL, 'sum', '{}', 'mcp_1', NULL, NULL, 'x', 'x', NULL, 100, 'a', 0, 1)`,
      )
      const store = postgresTaskStore(POSTGRES_URL!, { table: old })
      try {
        expect(await store.get('t1')).toMatchObject({ taskId: 't1', status: 'working' })
        await store.move('t1', { status: 'input_required', inputRequests: '{}' }, 'y', 'a')
        expect(await store.answer('t1', '{"k":{"action":"cancel"}}')).toBe(true)
        expect((await store.get('t1'))?.inputResponses).toBe('{"k": {"action": "cancel"}}')
      } finally {
        await store.close()
      }
    } finally {
      await client.query(`DROP TABLE IF EXISTS ${old}`)
      await client.end()
    }
  })
})

describe('Y6.3 postgresTaskStore options', () => {
  it('Y6.3: a bad table name throws INVALID_DEFINITION', () => {
    expect(() => postgresTaskStore('postgres://x', { table: 'Bad-Name' })).toThrow(
      /postgresTaskStore: table must be a lowercase SQL name/,
    )
  })
})
