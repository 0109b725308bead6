import { describe, expect, it } from 'vitest'
import { retryTransient } from '../src/transient-retry.js'

/** A step that fails with the given PostgreSQL codes in turn, then resolves `'done'`. */
function failing(codes: (string | undefined)[]) {
  let calls = 0
  const step = async (): Promise<string> => {
    const code = codes[calls++]
    if (calls <= codes.length) throw Object.assign(new Error(`failure ${calls}`), { code })
    return 'done'
  }
  return { step, calls: () => calls }
}

describe('N2.9 transient PostgreSQL errors in the queue set-up', () => {
  it('N2.9: a deadlock or a serialization failure is retried until the step succeeds', async () => {
    const flaky = failing(['40P01', '40001', '40P01'])
    await expect(retryTransient(flaky.step)).resolves.toBe('done')
    expect(flaky.calls()).toBe(4)
  })

  it('N2.9: any other error fails at once, and the fifth transient one is thrown', async () => {
    const other = failing(['23505'])
    await expect(retryTransient(other.step)).rejects.toThrow('failure 1')
    expect(other.calls()).toBe(1)
    const plain = failing([undefined])
    await expect(retryTransient(plain.step)).rejects.toThrow('failure 1')
    const stuck = failing(['40P01', '40P01', '40P01', '40P01', '40P01', '40P01'])
    await expect(retryTransient(stuck.step)).rejects.toThrow('failure 5')
    expect(stuck.calls()).toBe(5)
  })
})
