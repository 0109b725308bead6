/**
 * A deadline measured in running time: `expired` rejects with the deadline itself once it has
 * run `ms` in all. It runs from its creation; `pause` and `resume` stop and restart the clock
 * (`auditSession` pauses a call's bound while its nested calls are audited under bounds of their
 * own), and `stop` ends it for good without rejecting. Holds a timer only while running.
 */
export class PausableDeadline {
  readonly expired: Promise<never>
  #fire: () => void = () => {}
  #timer: NodeJS.Timeout | undefined
  #left: number
  #since = 0
  #stopped = false

  constructor(ms: number) {
    this.#left = ms
    this.expired = new Promise<never>((_, reject) => {
      this.#fire = () => reject(this)
    })
    // Nobody may be racing it when it fires (the call settled first): that is no failure.
    this.expired.catch(() => {})
    this.resume()
  }

  pause(): void {
    if (this.#timer === undefined) return
    clearTimeout(this.#timer)
    this.#timer = undefined
    this.#left -= Date.now() - this.#since
  }

  resume(): void {
    if (this.#timer !== undefined || this.#stopped) return
    this.#since = Date.now()
    this.#timer = setTimeout(this.#fire, Math.max(0, this.#left))
  }

  stop(): void {
    this.pause()
    this.#stopped = true
  }
}
