/**
 * The value constraints of the enforced subset (S3.9): number bounds, string length, pattern
 * and format, array length and uniqueness. One table says which type each keyword belongs to
 * and what a well-formed value is; `constraintCheck` compiles a node's constraints into one
 * message-producing check.
 */
import { FORMAT_TESTS, FORMATS, type Format, isFormat } from './formats.js'

/** The constraints a subset node carries, each present only when the schema wrote it. */
export interface Constraints {
  readonly minimum?: number
  readonly maximum?: number
  readonly exclusiveMinimum?: number
  readonly exclusiveMaximum?: number
  readonly multipleOf?: number
  readonly minLength?: number
  readonly maxLength?: number
  readonly pattern?: string
  readonly format?: Format
  readonly minItems?: number
  readonly maxItems?: number
  readonly uniqueItems?: boolean
}

export type ConstraintKey = keyof Constraints

/**
 * Compiles a schema's `pattern` into its tester (S4.18). It may throw to refuse a pattern; the
 * compiled validator's caller then sees that error.
 */
export type PatternEngine = (pattern: string) => { test(text: string): boolean }

/** The default engine: JavaScript's `RegExp` with the `u` flag (S3.9); backtracking, so only for trusted schemas. */
export const nativePatterns: PatternEngine = (pattern) => new RegExp(pattern, 'u')

type Family = 'number' | 'string' | 'array'

const isFiniteNumber = (v: unknown) => typeof v === 'number' && Number.isFinite(v)
const isCount = (v: unknown) => Number.isInteger(v) && (v as number) >= 0

function compiles(pattern: unknown): boolean {
  if (typeof pattern !== 'string') return false
  try {
    new RegExp(pattern, 'u')
    return true
  } catch {
    return false
  }
}

/** Each constraint keyword: the type family it needs and the rule for its value (S3.9). */
export const CONSTRAINTS: Readonly<
  Record<ConstraintKey, readonly [Family, (v: unknown) => boolean, string]>
> = {
  minimum: ['number', isFiniteNumber, 'a finite number'],
  maximum: ['number', isFiniteNumber, 'a finite number'],
  exclusiveMinimum: ['number', isFiniteNumber, 'a finite number'],
  exclusiveMaximum: ['number', isFiniteNumber, 'a finite number'],
  multipleOf: ['number', (v) => isFiniteNumber(v) && (v as number) > 0, 'a number greater than 0'],
  minLength: ['string', isCount, 'a non-negative integer'],
  maxLength: ['string', isCount, 'a non-negative integer'],
  pattern: ['string', compiles, 'a regular expression that compiles with the u flag'],
  format: ['string', isFormat, `one of ${FORMATS.map((f) => JSON.stringify(f)).join(', ')}`],
  minItems: ['array', isCount, 'a non-negative integer'],
  maxItems: ['array', isCount, 'a non-negative integer'],
  uniqueItems: ['array', (v) => typeof v === 'boolean', 'a boolean'],
}

/** True iff `key` is a constraint keyword. */
export function isConstraintKey(key: string): key is ConstraintKey {
  return Object.hasOwn(CONSTRAINTS, key)
}

/** The family of types a node of `type` belongs to, for constraint applicability. */
export function familyOf(type: string | undefined): Family | undefined {
  if (type === 'number' || type === 'integer') return 'number'
  if (type === 'string' || type === 'array') return type
  return undefined
}

/** Length in code points, as JSON Schema counts it. */
function codePoints(text: string): number {
  let n = 0
  for (const _ of text) n++
  return n
}

/** JSON equality (object key order ignored), iterative. */
function jsonEqual(a: unknown, b: unknown): boolean {
  const work: [unknown, unknown][] = [[a, b]]
  while (work.length > 0) {
    const [x, y] = work.pop()!
    if (x === y) continue
    if (typeof x !== 'object' || typeof y !== 'object' || x === null || y === null) return false
    if (Array.isArray(x) !== Array.isArray(y)) return false
    const kx = Object.keys(x)
    const ky = Object.keys(y)
    if (kx.length !== ky.length) return false
    for (const k of kx) {
      if (!Object.hasOwn(y, k)) return false
      work.push([(x as Record<string, unknown>)[k], (y as Record<string, unknown>)[k]])
    }
  }
  return true
}

/** The index pair of the first two equal items, or undefined. */
function firstDuplicate(items: readonly unknown[]): [number, number] | undefined {
  for (let j = 1; j < items.length; j++) {
    for (let i = 0; i < j; i++) if (jsonEqual(items[i], items[j])) return [i, j]
  }
  return undefined
}

/**
 * Compiles `constraints` into one check that receives a value already of the node's type and
 * returns the message tails (after `"<path>" `) of every violated constraint, in keyword
 * order; `undefined` when the node has no constraint. Total for values of the right type.
 * `patterns` compiles `pattern`.
 */
export function constraintCheck(
  c: Constraints,
  patterns: PatternEngine = nativePatterns,
): ((value: unknown) => string[]) | undefined {
  const tests: ((value: any) => string | undefined)[] = []
  const { minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf } = c
  if (minimum !== undefined) tests.push((v: number) => (v >= minimum ? undefined : `must be >= ${minimum}`))
  if (maximum !== undefined) tests.push((v: number) => (v <= maximum ? undefined : `must be <= ${maximum}`))
  if (exclusiveMinimum !== undefined)
    tests.push((v: number) => (v > exclusiveMinimum ? undefined : `must be > ${exclusiveMinimum}`))
  if (exclusiveMaximum !== undefined)
    tests.push((v: number) => (v < exclusiveMaximum ? undefined : `must be < ${exclusiveMaximum}`))
  // An integer quotient in floating point, as ajv computes it: -1 is a multiple of 0.1, 0.3 is not.
  if (multipleOf !== undefined)
    tests.push((v: number) =>
      Number.isInteger(v / multipleOf) ? undefined : `must be a multiple of ${multipleOf}`,
    )
  const { minLength, maxLength, pattern, format } = c
  if (minLength !== undefined)
    tests.push((v: string) =>
      codePoints(v) >= minLength ? undefined : `must have at least ${minLength} characters`,
    )
  if (maxLength !== undefined)
    tests.push((v: string) =>
      codePoints(v) <= maxLength ? undefined : `must have at most ${maxLength} characters`,
    )
  if (pattern !== undefined) {
    const regex = patterns(pattern)
    // A long pattern (zod writes whole grammars) is cut, so a message stays one short line.
    const shown = pattern.length > 40 ? `${pattern.slice(0, 40)}…` : pattern
    const tail = `must match the pattern ${JSON.stringify(shown)}`
    tests.push((v: string) => (regex.test(v) ? undefined : tail))
  }
  if (format !== undefined) {
    const test = FORMAT_TESTS[format]
    tests.push((v: string) => (test(v) ? undefined : `must be a valid ${format}`))
  }
  const { minItems, maxItems, uniqueItems } = c
  if (minItems !== undefined)
    tests.push((v: unknown[]) => (v.length >= minItems ? undefined : `must have at least ${minItems} items`))
  if (maxItems !== undefined)
    tests.push((v: unknown[]) => (v.length <= maxItems ? undefined : `must have at most ${maxItems} items`))
  if (uniqueItems === true) {
    tests.push((v: unknown[]) => {
      const pair = firstDuplicate(v)
      return pair === undefined
        ? undefined
        : `must not have duplicate items (items ${pair[0]} and ${pair[1]} are equal)`
    })
  }
  if (tests.length === 0) return undefined
  return (value) => {
    const out: string[] = []
    for (const test of tests) {
      const tail = test(value)
      if (tail !== undefined) out.push(tail)
    }
    return out
  }
}
