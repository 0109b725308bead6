/**
 * The expiry of a live agent's suspended turn (F2.18, F2.19). An agent alive in its process
 * holds the session's lease, so no other process (a worker's expiry job, N2.20) can continue the
 * turn while it lives: the agent itself continues it when the ask it waits on expires.
 */
import { type Session, suspendedTurn } from '@tooltx/session'

/** The longest a Node.js timer waits; a later expiry is watched again after it. */
const MAX_TIMER_MS = 2_147_483_647

/**
 * One timer, for the ask the latest turn of `session` waits on undecided. It is unref'd (it
 * never keeps the process alive) and reaches this watch only weakly, so an agent its owner
 * dropped (a worker's, once the job ended) is collected with its session, and its timer does
 * nothing.
 */
export class ExpiryWatch {
  #timer: ReturnType<typeof setTimeout> | undefined

  constructor(
    private readonly session: Session,
    private readonly onExpiry: () => void,
  ) {}

  /**
   * Arms the timer for the expiry of the ask the latest turn waits on with nobody deciding, or
   * only disarms it when there is none. When it fires, `onExpiry` runs unless the turn was
   * decided or continued meanwhile.
   */
  watch(): void {
    this.stop()
    const expiresAt = waitingExpiry(this.session)
    if (expiresAt === undefined) return
    const wait = Math.min(MAX_TIMER_MS, Math.max(0, Date.parse(expiresAt) - Date.now()))
    const self = new WeakRef(this)
    this.#timer = setTimeout(() => self.deref()?.fire(expiresAt), wait)
    this.#timer.unref?.()
  }

  /** Disarms the timer. */
  stop(): void {
    clearTimeout(this.#timer)
    this.#timer = undefined
  }

  /** The timer's end: `onExpiry` when the turn still waits on the ask that expires at `expiresAt`. */
  fire(expiresAt: string): void {
    this.#timer = undefined
    if (waitingExpiry(this.session) === expiresAt) this.onExpiry()
  }
}

/** The `expiresAt` of the ask the latest turn of `session` waits on undecided, if any. */
function waitingExpiry(session: Session): string | undefined {
  const suspended = suspendedTurn(session.events())
  return suspended?.decided === undefined ? suspended?.asked.expiresAt : undefined
}
