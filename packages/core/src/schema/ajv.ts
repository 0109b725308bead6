/**
 * Validation of plain JSON Schemas outside the enforced subset (S6.5) with ajv, an optional
 * peer dependency loaded only when such a schema is compiled. Its errors become S4-style
 * violations; formats use tooltx's own tests (S3.9).
 */
import { createRequire } from 'node:module'
import { codedError, errorMessage } from '../foundation/errors.js'
import { isFrozenSnapshot, isLosslessJson } from '../foundation/lossless-json.js'
import { FORMAT_TESTS, FORMATS } from './formats.js'
import type { CompiledValidator, ValidationRoot } from './validate.js'

interface AjvError {
  readonly instancePath: string
  readonly keyword: string
  readonly params: Record<string, unknown>
  readonly message?: string
}

interface AjvInstance {
  compile(schema: object): { (value: unknown): boolean; errors?: AjvError[] | null }
  addFormat(name: string, test: (text: string) => boolean): unknown
}

type AjvClass = new (options: object) => AjvInstance

/** The errors `compileWithAjv` threw because ajv could not be loaded (not because it rejected a schema). */
const ajvMissing = new WeakSet<object>()

/** True iff `error` says that ajv is missing, rather than that it rejected a schema. */
export function isAjvMissing(error: unknown): boolean {
  return typeof error === 'object' && error !== null && ajvMissing.has(error)
}

/** The ajv class of each dialect, loaded once. */
const classes = new Map<Dialect, AjvClass>()

/** The JSON Schema dialects ajv validates here. */
type Dialect = 'draft-07' | '2020-12'

/** Where a schema outside the subset stands and why it is outside, for ajv's error messages. */
export interface OutsideSubset {
  /** The schema's place, such as `parameters` or `output.schema`. */
  where: string
  /** The first keyword (or rule) that put it outside the subset. */
  why: string
}

/** `draft-07` when `$schema` names draft-07 (or an earlier draft ajv's default class handles), else `2020-12`. */
function dialectOf($schema: unknown): Dialect {
  return typeof $schema === 'string' && /draft-0[67]/.test($schema) ? 'draft-07' : '2020-12'
}

/** The ajv class of a dialect, loaded once; throws `UNSUPPORTED_SCHEMA` naming ajv when it is missing. */
function ajvClass(dialect: Dialect, { where, why }: OutsideSubset): AjvClass {
  const known = classes.get(dialect)
  if (known !== undefined) return known
  let Ajv: AjvClass
  try {
    const module = dialect === 'draft-07' ? 'ajv' : 'ajv/dist/2020'
    const loaded = createRequire(import.meta.url)(module) as { default?: AjvClass }
    Ajv = (loaded.default ?? loaded) as AjvClass
  } catch (error) {
    const missing = codedError(
      'UNSUPPORTED_SCHEMA',
      `${where} uses JSON Schema outside the enforced subset (${why}); validating it needs the optional ` +
        `peer dependency ajv, which could not be loaded (${errorMessage(error)}): run \`npm install ajv\``,
    )
    ajvMissing.add(missing)
    throw missing
  }
  classes.set(dialect, Ajv)
  return Ajv
}

/**
 * A fresh ajv instance for one schema (S4.17): ajv keeps every compiled schema by its `$id`
 * and refuses the same `$id` twice, so an instance shared across schemas would refuse a
 * definition compiled again, or let one schema's `$ref` reach another's.
 */
function ajvFor(dialect: Dialect, outside: OutsideSubset): AjvInstance {
  const Ajv = ajvClass(dialect, outside)
  const ajv = new Ajv({ strict: false, allErrors: true, ownProperties: true, logger: false })
  for (const name of FORMATS) ajv.addFormat(name, FORMAT_TESTS[name])
  return ajv
}

const ARTICLES: Readonly<Record<string, string>> = {
  string: 'a string',
  number: 'a number',
  integer: 'an integer',
  boolean: 'a boolean',
  null: 'null',
  array: 'an array',
  object: 'an object',
}

/** The S4.2 path of a JSON pointer into `value`: `[i]` for array items, `.key` otherwise. */
function pathOf(pointer: string, value: unknown, root: ValidationRoot): string {
  let out = root === 'arguments' ? '' : root
  let at: unknown = value
  for (const raw of pointer === '' ? [] : pointer.slice(1).split('/')) {
    const key = raw.replaceAll('~1', '/').replaceAll('~0', '~')
    if (Array.isArray(at)) out = `${out === '' ? root : out}[${key}]`
    else out = out === '' ? key : `${out}.${key}`
    at = at !== null && typeof at === 'object' ? (at as Record<string, unknown>)[key] : undefined
  }
  return out === '' ? root : out
}

/** One ajv error as an S4 violation. */
function violation(error: AjvError, value: unknown, root: ValidationRoot): string {
  const path = pathOf(error.instancePath, value, root)
  const child = (name: unknown) =>
    path === root && root === 'arguments' ? String(name) : `${path}.${String(name)}`
  const { params } = error
  switch (error.keyword) {
    case 'required':
      return `missing required property "${child(params.missingProperty)}"`
    case 'additionalProperties':
      return `"${child(params.additionalProperty)}" is not a declared property (additionalProperties: false)`
    case 'type': {
      const type = String(params.type)
      return `"${path}" must be ${ARTICLES[type] ?? `of type ${type}`}`
    }
    case 'enum':
      return `"${path}" must be one of ${JSON.stringify(params.allowedValues)}`
    case 'const':
      return `"${path}" must be ${JSON.stringify(params.allowedValue)}`
    default:
      return `"${path}" ${error.message ?? `fails ${error.keyword}`}`
  }
}

/**
 * Compiles `schema` (frozen lossless JSON outside the subset, as `outside` says) with ajv for
 * draft-07 when its `$schema` says so, 2020-12 otherwise. Throws `UNSUPPORTED_SCHEMA` naming
 * `outside.where` when ajv is missing or rejects the schema. The validator is total, checks
 * losslessness first (S4.1) and reports ajv's errors as S4-style violations.
 */
export function compileWithAjv(schema: object, outside: OutsideSubset): CompiledValidator {
  const { where } = outside
  const ajv = ajvFor(dialectOf((schema as Record<string, unknown>).$schema), outside)
  let validate: ReturnType<AjvInstance['compile']>
  try {
    validate = ajv.compile(schema)
  } catch (error) {
    throw codedError('UNSUPPORTED_SCHEMA', `${where} is not a valid JSON Schema: ${errorMessage(error)}`)
  }
  return (value, root) => {
    if (!isFrozenSnapshot(value) && !isLosslessJson(value)) return [`"${root}" must be a lossless JSON value`]
    try {
      if (validate(value)) return []
      const out: string[] = []
      for (const error of validate.errors ?? []) {
        const line = violation(error, value, root)
        if (!out.includes(line)) out.push(line)
      }
      return out.length > 0 ? out : [`"${root}" does not match the schema`]
    } catch (error) {
      return [`"${root}" could not be validated (${errorMessage(error)})`]
    }
  }
}
