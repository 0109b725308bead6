/**
 * A crash injected at a durable write: a real store whose `append` number `at` (counting from 1)
 * is the process's last. With `written: false` the process dies before that write lands; with
 * `written: true` it lands and the process dies before it hears so (the acknowledgement is lost).
 * Either way that append and every later one reject, as nothing a dead process does is durable.
 */
import type { SessionStore } from '@tooltx/session'

/** Where a process dies: at its `at`-th append, before or after that write is durable. */
export interface CrashPlan {
  readonly at: number
  readonly written: boolean
}

/** A store that dies as its plan says, and what it saw. */
export interface CrashingStore {
  readonly store: SessionStore
  /** True once the planned append was reached: the process is dead. */
  crashed(): boolean
  /** How many appends were asked for, the fatal one and later ones included. */
  appends(): number
}

/** The error a dead process's appends reject with. */
export class InjectedCrash extends Error {
  constructor(at: number) {
    super(`injected crash at durable write ${at}`)
  }
}

/**
 * `inner` with appends counted and the crash of `plan` injected (none when `plan` is
 * `undefined`); every other method, checkpoints included, is `inner`'s own.
 */
export function crashingStore(inner: SessionStore, plan: CrashPlan | undefined): CrashingStore {
  let count = 0
  let dead = false
  const store: SessionStore = {
    acquire: (id) => inner.acquire(id),
    load: (id) => inner.load(id),
    listSessions: () => inner.listSessions(),
    release: (id) => inner.release!(id),
    close: () => inner.close(),
    async append(id, events) {
      count++
      if (dead) throw new InjectedCrash(plan!.at)
      if (plan !== undefined && count === plan.at) {
        dead = true
        if (plan.written) await inner.append(id, events)
        throw new InjectedCrash(plan.at)
      }
      return inner.append(id, events)
    },
  }
  if (inner.loadCheckpoint !== undefined) {
    const load = inner.loadCheckpoint.bind(inner)
    store.loadCheckpoint = (id) => load(id)
  }
  if (inner.saveCheckpoint !== undefined) {
    const save = inner.saveCheckpoint.bind(inner)
    store.saveCheckpoint = (id, seq, state) => (dead ? Promise.resolve() : save(id, seq, state))
  }
  return { store, crashed: () => dead, appends: () => count }
}
