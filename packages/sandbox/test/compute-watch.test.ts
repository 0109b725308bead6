/** The host's compute backstop reads slice numbers, never another thread's clock (X8.20). */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { ComputeWatch } from '../src/compute-watch.js'

/** Meters as the worker writes them, and a host clock the test moves by hand. */
function rig(computeMs: number) {
  const meters = new Float64Array(3)
  let now = 0
  const watch = new ComputeWatch(meters, computeMs, () => now)
  return {
    meters,
    watch,
    at(ms: number) {
      now = ms
      return watch.overBudget()
    },
  }
}

describe('X8.20 the compute backstop', () => {
  it('X8.20: a running slice counts from the first tick that sees it, by the host clock alone', () => {
    const { meters, at } = rig(100)
    // What the worker wrote before: a timestamp of its own clock, here a wall-clock time a minute
    // ahead of the host's. As a slice number it means nothing more than "slice running".
    meters[1] = Date.now() + 60_000
    expect(at(5_000)).toBe(false)
    expect(at(5_104)).toBe(false)
    expect(at(5_106)).toBe(true)
  })

  it('X8.20: finished slices add up, and each new slice is timed afresh', () => {
    const { meters, at } = rig(100)
    meters[1] = 1
    expect(at(0)).toBe(false)
    expect(at(60)).toBe(false)
    meters[0] = 60
    meters[1] = 0
    expect(at(500)).toBe(false)
    meters[1] = 2
    expect(at(1_000)).toBe(false)
    expect(at(1_044)).toBe(false)
    expect(at(1_046)).toBe(true)
  })

  it('X8.20: busy time within the budget never ends a run, whatever the clocks and tick times', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 40 }), { minLength: 1, maxLength: 10 }),
        fc.double({ min: -1e12, max: 1e12, noNaN: true }),
        fc.integer({ min: 1, max: 20 }),
        (slices, origin, tick) => {
          const budget = slices.reduce((a, b) => a + b, 0)
          const { meters, at } = rig(Math.max(1, budget))
          let now = origin
          let used = 0
          for (const [i, length] of slices.entries()) {
            meters[1] = i + 1
            for (let t = 0; t <= length; t += tick) if (at(now + t)) return false
            now += length + 1
            used += length
            meters[0] = used
            meters[1] = 0
            if (at(now)) return false
          }
          return true
        },
      ),
    )
  })
})
