/**
 * L11: the file store's lock. Real processes race to take over a lock a dead process left;
 * a lock survives a restart of a process that gets the same pid; closing a session lets it go.
 */
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { fileStore, openSession } from '../src/index.js'
import { child, exited, lines } from './child-process.js'
import { tempRoot } from './temp-root.js'

const root = tempRoot('tooltx-locks-')

const deadPid = (): number => spawnSync(process.execPath, ['-e', '0']).pid!

describe('L11 file-store locks', () => {
  it("L11.2: of many processes taking over a dead process's lock at the same instant, exactly one becomes the writer", async () => {
    const RACERS = 6
    const ROUNDS = 12
    const dir = join(root, 'race')
    mkdirSync(dir, { recursive: true })
    const racers = Array.from({ length: RACERS }, () => child('lock-race.mjs'))
    const outs = racers.map(lines)
    try {
      await Promise.all(outs.map((o) => o.waitFor('ready')))
      for (let round = 0; round < ROUNDS; round++) {
        const id = `race${round}`
        writeFileSync(join(dir, `${id}.jsonl.lock`), `${deadPid()} deadbeef`)
        const seen = outs.map((o) => o.all.length)
        const at = Date.now() + 150
        for (const r of racers) r.stdin!.write(`go ${at} ${dir} ${id}\n`)
        const results = await Promise.all(
          outs.map(async (o, i) => {
            for (;;) {
              const line = o.all.slice(seen[i]).find((l) => l.startsWith('ok') || l.startsWith('error'))
              if (line !== undefined) return line
              await new Promise((r) => setTimeout(r, 5))
            }
          }),
        )
        const writers = results.filter((r) => r === 'ok')
        expect(writers, `round ${round}: ${results.join(' | ')}`).toHaveLength(1)
        for (const r of results.filter((x) => x !== 'ok')) {
          expect(r).toMatch(
            /^error invariant violated: session "race\d+" is held by another live writer \(process \d+(, which is taking the lock over)?\) whose lease runs until /,
          )
        }
        for (const r of racers) r.stdin!.write('close\n')
        await Promise.all(outs.map((o, i) => waitForNew(o, seen[i]!, 'closed')))
        // The log holds the one writer's event and loads cleanly.
        const check = fileStore(dir)
        expect((await check.load(id)).map((e) => e.seq)).toEqual([1])
        await check.close()
      }
    } finally {
      for (const r of racers) r.kill('SIGKILL')
      await Promise.all(racers.map(exited))
    }
  }, 120_000)

  it('L11.3: a lock holding this pid but written by an earlier process (a restarted PID 1) is taken over', async () => {
    const dir = join(root, 'restart')
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, 'r.jsonl.lock'), `${process.pid} ${bootId()}.1 0123456789abcdef`)
    const store = fileStore(dir)
    const session = await openSession(store, { id: 'r' })
    await session.append('turn/start', { turn: 1 })
    await session.append('turn/end', { turn: 1, reason: 'completed' })
    expect(readFileSync(join(dir, 'r.jsonl.lock'), 'utf8')).toMatch(
      new RegExp(`^${process.pid} \\S+ [0-9a-f]{16}$`),
    )
    // A second store object of this same process is still told apart from a dead predecessor.
    await expect(openSession(fileStore(dir), { id: 'r' })).rejects.toThrow(
      /is held by another live writer \(another store object in this process\) whose lease runs until/,
    )
    await store.close()
  })

  it("L11.3: a live pid that belongs to a later process than the lock's is stale; the lock's own process holds it", async () => {
    const sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'])
    try {
      const pid = sleeper.pid!
      const dir = join(root, 'reused')
      mkdirSync(dir, { recursive: true })
      const lock = join(dir, 'p.jsonl.lock')
      const start = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[19]
      writeFileSync(lock, `${pid} ${bootId()}.${start} 0123456789abcdef`)
      const held = fileStore(dir)
      await expect(openSession(held, { id: 'p' })).rejects.toThrow(
        `is held by another live writer (process ${pid})`,
      )
      await held.close()
      writeFileSync(lock, `${pid} ${bootId()}.${Number(start) - 1} 0123456789abcdef`)
      const store = fileStore(dir)
      await (await openSession(store, { id: 'p' })).append('turn/start', { turn: 1 })
      await store.close()
    } finally {
      sleeper.kill('SIGKILL')
      await exited(sleeper)
    }
  })

  it('L11.5: closing a session releases its lock, so a new store object in this process can reopen it', async () => {
    const dir = join(root, 'reopen')
    const first = fileStore(dir)
    const a = await openSession(first, { id: 'x' })
    await a.append('turn/start', { turn: 1 })
    await a.append('turn/end', { turn: 1, reason: 'completed' })
    await a.close()
    expect(existsSync(join(dir, 'x.jsonl.lock'))).toBe(false)
    const second = fileStore(dir)
    const b = await openSession(second, { id: 'x' })
    await b.append('turn/start', { turn: 2 })
    expect(b.events().map((e) => e.seq)).toEqual([1, 2, 3])
    await b.close()
    // The first store object still works: it takes the lock again once it is free (and repairs turn 2).
    const c = await openSession(first, { id: 'x' })
    expect(c.events().map((e) => e.type)).toEqual(['turn/start', 'turn/end', 'turn/start', 'turn/end'])
    await first.close()
    await second.close()
  })
})

const bootId = (): string => readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()

async function waitForNew(out: { all: string[] }, from: number, prefix: string): Promise<void> {
  while (!out.all.slice(from).some((l) => l.startsWith(prefix))) await new Promise((r) => setTimeout(r, 5))
}
