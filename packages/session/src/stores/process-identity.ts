/**
 * Which process holds a writer lock or lease on this machine: `<pid> <start> <token>`, where
 * `<start>` says which process had that pid (L11.3), so a holder that died — or whose pid was
 * reused — is told apart from a live one.
 */
import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'

/**
 * What tells two processes with the same pid apart. On Linux the boot id and the process's
 * start time in clock ticks (`/proc/<pid>/stat` field 22), so a lock of an earlier process
 * with a reused pid — PID 1 of a restarted container — is known to be dead; `undefined` where
 * `/proc` cannot say.
 */
function startOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // The command name (field 2) is in parentheses and may hold spaces; field 3 follows it.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()
    return `${boot}.${fields[19]}`
  } catch {
    return undefined
  }
}

/**
 * This process's start identity: from `/proc`, or else one random value per process, kept on
 * `globalThis` so two copies of this module in one process agree.
 */
function ownStart(): string {
  const key = Symbol.for('tooltx.session.processStart')
  const global = globalThis as { [key]?: string }
  global[key] ??= startOf(process.pid) ?? `random.${randomBytes(8).toString('hex')}`
  return global[key]
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as { code?: unknown }).code === 'EPERM'
  }
}

/** A new holder identity for one store object: `<pid> <start> <token>`. */
export function lockContent(): string {
  return `${process.pid} ${ownStart()} ${randomBytes(8).toString('hex')}`
}

/**
 * Who holds a lock with `content` whose lease runs until `expires` (milliseconds since the
 * epoch), or `undefined` when its holder is gone: the lease expired (its holder stopped renewing
 * it: dead, paused or cut off), the pid is dead, or it is alive but belongs to a later process
 * than the one that wrote the lock (another start identity). A lock of the older
 * `<pid> <token>` format is judged by its pid alone (held iff another process with that pid is
 * alive); content that is not a lock is stale.
 */
export function liveHolder(content: string, expires: number): string | undefined {
  if (!(expires > Date.now())) return undefined
  const fields = content.split(' ')
  const pid = Number(fields[0])
  const start = fields.length === 3 ? fields[1] : undefined
  if (!Number.isSafeInteger(pid) || pid <= 0) return undefined
  if (pid === process.pid) return start === ownStart() ? 'another store object in this process' : undefined
  if (!isAlive(pid)) return undefined
  const current = startOf(pid)
  if (start !== undefined && current !== undefined && current !== start && !start.startsWith('random.')) {
    return undefined
  }
  return `process ${pid}`
}
