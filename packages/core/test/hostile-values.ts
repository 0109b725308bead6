/**
 * Makers of values that try to break whatever inspects them, for the tests of the functions that
 * must stay total on them (`errorMessage`, `readToolError`, `isLosslessJson`). Each test keeps
 * its own list of which hostile values it feeds in, next to what it expects back.
 */
import fc from 'fast-check'

/** The name of a Proxy trap. */
export type Trap = keyof ProxyHandler<object>

/** Every trap that reading, converting or changing a plain object can run. */
const EVERY_TRAP: readonly Trap[] = [
  'get',
  'has',
  'ownKeys',
  'getPrototypeOf',
  'getOwnPropertyDescriptor',
  'defineProperty',
  'set',
  'isExtensible',
  'preventExtensions',
  'deleteProperty',
]

function throwingProxy(traps: readonly Trap[], thrown: (trap: Trap) => unknown): object {
  const handler: ProxyHandler<object> = {}
  for (const trap of traps) {
    handler[trap] = () => {
      throw thrown(trap)
    }
  }
  return new Proxy({}, handler)
}

/** A Proxy on `{}` whose `traps` each throw `new Error('trap <name>')`; the others pass through. */
export function trapping(traps: readonly Trap[]): object {
  return throwingProxy(traps, (trap) => new Error(`trap ${trap}`))
}

/** A Proxy on `{}` whose every trap throws `boom` (any value, `undefined` included). */
export function trapEverything(boom: unknown): object {
  return throwingProxy(EVERY_TRAP, () => boom)
}

/** A revoked Proxy: every operation on it throws `TypeError`. */
export function revoked(): object {
  const { proxy, revoke } = Proxy.revocable({}, {})
  revoke()
  return proxy
}

/** Any value fast-check can build, with every option that widens `fc.anything` turned on. */
export const anyValue = fc.anything({
  withBigInt: true,
  withBoxedValues: true,
  withDate: true,
  withMap: true,
  withSet: true,
  withNullPrototype: true,
  withObjectString: true,
  withSparseArray: true,
  withTypedArray: true,
})
