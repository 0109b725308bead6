/**
 * One measured open for `session-open.bench.ts`, in a fresh process so its peak RSS is the
 * open's own: `node session-open-child.mjs <file|sqlite> <path> <id> <checkpointEvery|Infinity> [messages]`.
 * Prints `{ openMs, messagesMs?, events, maxRssMb, baseRssMb }` as JSON. Plain JavaScript on the
 * built package, so no TypeScript loader sits in the measured heap.
 */
import { fileStore, openSession, sqliteStore } from '@tooltx/session'

const [kind, path, id, every, then] = process.argv.slice(2)
const baseRssMb = process.resourceUsage().maxRSS / 1024
const started = performance.now()
const store = kind === 'file' ? fileStore(path) : sqliteStore(path)
const session = await openSession(store, { id, checkpointEvery: Number(every) })
const openMs = performance.now() - started
const out = { openMs, baseRssMb }
if (then === 'messages') {
  const before = performance.now()
  out.messages = session.messages().length
  out.messagesMs = performance.now() - before
}
out.maxRssMb = process.resourceUsage().maxRSS / 1024
await session.close()
await store.close()
process.stdout.write(JSON.stringify(out))
