import { errorMessage } from '@tooltx/core/internal'
import type { SessionEvent, SessionStore } from '@tooltx/session'

/**
 * One job's view of the worker's store, which stops writing at the first failed write (N2.13).
 * The loop answers a failed append by ending its turn `error` (L5.5); were that `turn/end`
 * durable — the database is back a moment later, as after a restart — the log would show the
 * message answered by a turn that never answered it. Through this view the `turn/end` fails
 * too: the turn stays open, the job fails and is retried, and the next worker recovers the
 * turn and resumes it (N2.3, N2.11). Reads, the lease and checkpoints pass through unchanged
 * (`release` once per `acquire`); so does a session's refusal of an event before it reaches the
 * store, which is no store failure. `beforeAppend` runs before each append reaches the store; when
 * it rejects, the append fails as a failed write does and nothing reaches the store.
 */
export class WriteGuard {
  /** The view to open the job's session on. */
  readonly store: SessionStore
  #failure: unknown
  #failed = false

  constructor(
    store: SessionStore,
    beforeAppend: (events: readonly SessionEvent[]) => Promise<void> = async () => undefined,
  ) {
    const refuse = (id: string): Error =>
      new Error(
        `session "${id}": an earlier write of this job failed (${errorMessage(this.#failure)}), so it writes nothing more; the next attempt reopens the session`,
        { cause: this.#failure },
      )
    const write = async (id: string, run: () => Promise<void>): Promise<void> => {
      if (this.#failed) throw refuse(id)
      try {
        await run()
      } catch (error) {
        if (!this.#failed) {
          this.#failed = true
          this.#failure = error
        }
        throw error
      }
    }
    // Methods are called on `store` itself: a store may be a class with private fields.
    const { loadCheckpoint, saveCheckpoint, release } = store
    const released = new Set<string>()
    this.store = {
      acquire: (id) => {
        released.delete(id)
        return store.acquire(id)
      },
      load: (id) => store.load(id),
      append: (id, events) =>
        write(id, async () => {
          await beforeAppend(events)
          await store.append(id, events)
        }),
      listSessions: () => store.listSessions(),
      close: () => store.close(),
      ...(loadCheckpoint === undefined ? {} : { loadCheckpoint: (id) => loadCheckpoint.call(store, id) }),
      // A checkpoint holds no event (a lost one costs only a longer open), so it passes through.
      ...(saveCheckpoint === undefined
        ? {}
        : { saveCheckpoint: (id, seq, state) => saveCheckpoint.call(store, id, seq, state) }),
      // Released once: the worker may close a job's failed handle early, to record the failure
      // on a fresh one (N2.12), and closes it again when the job ends.
      ...(release === undefined
        ? {}
        : {
            release: async (id) => {
              if (released.has(id)) return
              released.add(id)
              await release.call(store, id)
            },
          }),
    }
  }

  /** True once a write through `store` failed. */
  get failed(): boolean {
    return this.#failed
  }

  /** What the first failed write rejected with (`undefined` while none failed). */
  get failure(): unknown {
    return this.#failure
  }
}
