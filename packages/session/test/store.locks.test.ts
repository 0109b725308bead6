/**
 * L11: the file store's lock. Real processes race to take over a lock a dead process left;
 * a lock survives a restart of a process that gets the same pid; closing a session lets it go.
 */
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { fileStore } from '../src/index.js'
import { child, exited, lines } from './child-process.js'

const root = mkdtempSync(join(tmpdir(), 'tooltx-locks-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

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
          expect(r).toMatch(/^error invariant violated: session "race\d+" has another writer \(process \d+\)/)
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
})

async function waitForNew(out: { all: string[] }, from: number, prefix: string): Promise<void> {
  while (!out.all.slice(from).some((l) => l.startsWith(prefix))) await new Promise((r) => setTimeout(r, 5))
}
