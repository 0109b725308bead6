import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { runInNewContext } from 'node:vm'
import fc from 'fast-check'
import { describe, expect, expectTypeOf, it } from 'vitest'
import {
  codedError,
  definitionError,
  ERROR_NAMES,
  errorMessage,
  invariantError,
  readToolError,
  ToolError,
  type ToolErrorCode,
} from '../src/foundation/errors.js'
import { anyValue, revoked, trapping } from './hostile-values.js'

/**
 * Core's error-code table of docs/SPEC.md (the first table of "Error codes", not the codes of
 * `@tooltx/mcp` listed below it), read from the contract itself (an independent oracle: a code or
 * name that drifts in either place fails).
 */
const TABLE: Readonly<Record<string, string>> = Object.fromEntries(
  [
    ...readFileSync(fileURLToPath(new URL('../../../docs/SPEC.md', import.meta.url)), 'utf8')
      .split('## Error codes')[1]!
      .split('\n\n|')[1]!
      .split('\n\n')[0]!
      .matchAll(/^\| `([A-Z_]+)` \| `(\w+)` \|/gm),
  ].map((row) => [row[1]!, row[2]!]),
)
const CODES = Object.keys(TABLE) as ToolErrorCode[]
const UNPRINTABLE = '<unprintable thrown value>'

const CODE = /^[A-Z][A-Z0-9_]*$/
const validCode = fc.stringMatching(CODE)

/** Thrown values that try to break whoever inspects them. */
function hostileThrown(): unknown[] {
  const throwingMessage = Object.defineProperty(new Error('x'), 'message', {
    get() {
      throw new Error('message getter')
    },
  })
  return [
    trapping(['get', 'has', 'getPrototypeOf', 'ownKeys', 'getOwnPropertyDescriptor']),
    trapping(['get']),
    trapping(['getPrototypeOf']),
    trapping(['has']),
    revoked(),
    Object.create(null),
    {
      toString() {
        throw new Error('toString')
      },
    },
    {
      [Symbol.toPrimitive]() {
        throw new Error('toPrimitive')
      },
    },
    { toString: () => ({}), valueOf: () => ({}) },
    throwingMessage,
    Symbol('thrown'),
    10n,
    undefined,
    null,
    () => 'a function',
  ]
}

describe('E1 failure results', () => {
  it('E1.1: every built-in code has its non-empty table name, and codedError carries both', () => {
    expect(ERROR_NAMES).toEqual(TABLE)
    for (const code of CODES) {
      expect(ERROR_NAMES[code]).toMatch(/^[A-Z]\w*Error$/)
      const error = codedError(code, 'what happened')
      expect(error).toBeInstanceOf(ToolError)
      expect({ name: error.name, code: error.code }).toEqual({ name: TABLE[code], code })
      expect(readToolError(error)).toEqual({ name: TABLE[code], code, message: 'what happened' })
    }
  })

  it('E1.2: ToolError is an Error with own code and name, default name ToolError', () => {
    const plain = new ToolError('MY_CODE', 'message')
    expect(plain).toBeInstanceOf(Error)
    expect(Object.hasOwn(plain, 'code')).toBe(true)
    expect(Object.hasOwn(plain, 'name')).toBe(true)
    expect(plain.code).toBe('MY_CODE')
    expect(plain.name).toBe('ToolError')
    expect(plain.message).toBe('message')
    const named = new ToolError('RATE_LIMITED', 'slow down', { name: 'RateLimitError' })
    expect(named.name).toBe('RateLimitError')
    expect(String(named)).toBe('RateLimitError: slow down')
    // Own properties survive a structured clone's view of the error's data.
    expect({ ...plain }).toMatchObject({ code: 'MY_CODE' })
  })

  it('E1.2: a code that does not match /^[A-Z][A-Z0-9_]*$/ throws TypeError', () => {
    for (const code of ['', 'lower', 'Mixed', '1ABC', '_ABC', 'A-B', 'A B', 'É']) {
      expect(() => new ToolError(code, 'm')).toThrow(TypeError)
    }
    for (const code of [
      undefined,
      null,
      42,
      Symbol('c'),
      Object.create(null),
      revoked(),
      trapping(['get']),
    ]) {
      expect(() => new ToolError(code as never, 'm')).toThrow(TypeError)
    }
    fc.assert(
      fc.property(fc.string(), (code) => {
        if (CODE.test(code)) expect(new ToolError(code, 'm').code).toBe(code)
        else expect(() => new ToolError(code, 'm')).toThrow(TypeError)
      }),
    )
  })

  it('E1.3: a ToolError keeps its name, code and message whatever the code, built-in or the author’s own', () => {
    fc.assert(
      fc.property(
        validCode,
        fc.string(),
        fc.option(fc.string({ minLength: 1 }), { nil: undefined }),
        (code, message, name) => {
          const error = new ToolError(code, message, name === undefined ? {} : { name })
          expect(readToolError(error)).toEqual({ name: name ?? 'ToolError', code, message })
        },
      ),
    )
    expect(readToolError(new ToolError('DENIED', 'custom deny', { name: 'MyDenial' }))).toEqual({
      name: 'MyDenial',
      code: 'DENIED',
      message: 'custom deny',
    })
  })

  it('E1.4: a thrown value that is not a ToolError is not read as one (the pipeline maps it to TOOL_FAILED or HOOK_FAILED)', () => {
    const lookalikes: unknown[] = [
      new Error('plain'),
      Object.assign(new Error('fs'), { code: 'ENOENT' }),
      { name: 'ToolError', code: 'TOOL_FAILED', message: 'an object that looks like one' },
      'TOOL_FAILED',
      ...hostileThrown(),
    ]
    for (const value of lookalikes) expect(readToolError(value)).toBeUndefined()
  })

  it('E1.5: if reading name or code throws or yields a non-string, the error is treated as a non-ToolError', () => {
    const throwingCode = new ToolError('X', 'm')
    Object.defineProperty(throwingCode, 'code', {
      get() {
        throw new Error('code getter')
      },
    })
    const throwingName = new ToolError('X', 'm')
    Object.defineProperty(throwingName, 'name', {
      get() {
        throw new Error('name getter')
      },
    })
    const numericCode = new ToolError('X', 'm')
    Object.defineProperty(numericCode, 'code', { value: 7 })
    const objectName = new ToolError('X', 'm', { name: {} as string })
    const emptyName = new ToolError('X', 'm', { name: '' })
    const proxied = new Proxy(new ToolError('X', 'm'), {
      getPrototypeOf() {
        throw new Error('proto trap')
      },
    })
    const proxiedGet = new Proxy(new ToolError('X', 'm'), {
      get() {
        throw new Error('get trap')
      },
    })
    for (const value of [
      throwingCode,
      throwingName,
      numericCode,
      objectName,
      emptyName,
      proxied,
      proxiedGet,
    ]) {
      expect(() => readToolError(value)).not.toThrow()
      expect(readToolError(value)).toBeUndefined()
    }
  })

  it('E1.6: denials and blocks have their own codes and names, distinct from tool failures', () => {
    expect(codedError('DENIED', 'no')).toMatchObject({ code: 'DENIED', name: 'ToolDeniedError' })
    expect(codedError('BLOCKED', 'no')).toMatchObject({ code: 'BLOCKED', name: 'ToolBlockedError' })
    const policy = new Set([ERROR_NAMES.DENIED, ERROR_NAMES.BLOCKED])
    for (const code of CODES.filter((c) => c !== 'DENIED' && c !== 'BLOCKED')) {
      expect(policy.has(ERROR_NAMES[code])).toBe(false)
    }
    expect(ERROR_NAMES.DENIED).not.toBe(ERROR_NAMES.BLOCKED)
  })

  it('E1.7: a message read from an error never gains an "Error: " prefix', () => {
    fc.assert(
      fc.property(fc.string(), (message) => {
        expect(errorMessage(new Error(message))).toBe(message)
        expect(errorMessage(new TypeError(message))).toBe(message)
        expect(errorMessage(codedError('TOOL_FAILED', message))).toBe(message)
        expect(readToolError(codedError('HOOK_FAILED', message))?.message).toBe(message)
      }),
    )
    expect(invariantError('x').message.startsWith('Error: ')).toBe(false)
  })
})

describe('E2 errorMessage is total', () => {
  it('E2.1: the message of an Error, the message string of any object, String(x) otherwise', () => {
    expect(errorMessage(new RangeError('range'))).toBe('range')
    expect(errorMessage({ message: 'from an object' })).toBe('from an object')
    expect(errorMessage(Object.assign(() => 0, { message: 'from a function' }))).toBe('from a function')
    expect(errorMessage('a string')).toBe('a string')
    expect(errorMessage(42)).toBe('42')
    expect(errorMessage(undefined)).toBe('undefined')
    expect(errorMessage(null)).toBe('null')
    expect(errorMessage(Symbol('s'))).toBe('Symbol(s)')
    expect(errorMessage({ message: 5 })).toBe('[object Object]')
    expect(errorMessage({ toString: () => 'custom' })).toBe('custom')
    expect(errorMessage(runInNewContext('new Error("from another realm")'))).toBe('from another realm')
  })

  it('E2.2: inspecting or converting a hostile value yields <unprintable thrown value> and never throws', () => {
    expect(errorMessage(trapping(['get']))).toBe(UNPRINTABLE)
    expect(errorMessage(revoked())).toBe(UNPRINTABLE)
    expect(errorMessage(Object.create(null))).toBe(UNPRINTABLE)
    expect(
      errorMessage({
        toString() {
          throw new Error('no')
        },
      }),
    ).toBe(UNPRINTABLE)
    for (const value of hostileThrown()) {
      expect(() => errorMessage(value)).not.toThrow()
      expect(typeof errorMessage(value)).toBe('string')
    }
  })

  it('E2.3: errorMessage returns a string for every value, so no message built from a thrown value can throw', () => {
    fc.assert(
      fc.property(anyValue, (value) => {
        expect(typeof errorMessage(value)).toBe('string')
        expect(() => readToolError(value)).not.toThrow()
      }),
    )
  })
})

describe('E3 errors thrown to registrants', () => {
  it('E3.1: UNSUPPORTED_SCHEMA, INVALID_DEFINITION and INVARIANT are ToolError instances with their table names', () => {
    const invariant = invariantError('token reused')
    expect(invariant).toBeInstanceOf(ToolError)
    expect({ code: invariant.code, name: invariant.name, message: invariant.message }).toEqual({
      code: 'INVARIANT',
      name: 'InvariantError',
      message: 'invariant violated: token reused',
    })
    const definition = definitionError('tool name "a b" must match /^[A-Za-z0-9_-]{1,64}$/')
    expect(definition).toBeInstanceOf(ToolError)
    expect({ code: definition.code, name: definition.name }).toEqual({
      code: 'INVALID_DEFINITION',
      name: 'DefinitionError',
    })
    expect(definition.message).toBe('tool name "a b" must match /^[A-Za-z0-9_-]{1,64}$/')
    const schema = codedError('UNSUPPORTED_SCHEMA', 'oneOf is not supported')
    expect({ code: schema.code, name: schema.name }).toEqual({
      code: 'UNSUPPORTED_SCHEMA',
      name: 'SchemaError',
    })
    expect(() => {
      throw definitionError('x')
    }).toThrow(ToolError)
  })

  it('E3.2: building or throwing errors changes no shared state: the table is frozen and stays as it was', () => {
    expect(Object.isFrozen(ERROR_NAMES)).toBe(true)
    const before = { ...ERROR_NAMES }
    expect(() => {
      ;(ERROR_NAMES as Record<string, string>).DENIED = 'Changed'
    }).toThrow(TypeError)
    for (const code of CODES) codedError(code, 'm')
    new ToolError('CUSTOM', 'm', { name: 'Custom' })
    expect(() => new ToolError('bad', 'm')).toThrow(TypeError)
    expect(ERROR_NAMES).toEqual(before)
  })

  it('E3.3: ToolErrorCode is exactly the union of the table, and ERROR_NAMES covers every code', () => {
    expectTypeOf<keyof typeof ERROR_NAMES>().toEqualTypeOf<ToolErrorCode>()
    expect(Object.keys(ERROR_NAMES).sort()).toEqual([...CODES].sort())
    expect(CODES).toHaveLength(20)
  })
})
