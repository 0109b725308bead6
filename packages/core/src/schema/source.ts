/**
 * The schema forms `defineTool` accepts for `parameters` and `output.schema` (S6): the DSL (S1),
 * a Standard Schema (S6.1) or a plain JSON Schema (S6.4). Each becomes one `SchemaContract`: the
 * model-facing JSON Schema and the validator that decides, with S4-style messages.
 */
import type { JsonSchema } from '../contract/definition.js'
import { codedError, errorMessage } from '../foundation/errors.js'
import { snapshotJson } from '../foundation/lossless-json.js'
import { compileWithAjv, isAjvMissing } from './ajv.js'
import { compileParameters, compileValueSchema } from './dsl.js'
import { issueViolations, standardJsonSchema, standardProps } from './standard.js'
import { parseSchema } from './subset.js'
import { type CompiledValidator, compileValidator, type ValidationRoot } from './validate.js'

/** A validation verdict; `value` is what the body or the pipeline keeps (S6.3). */
export type ParseOutcome = { ok: true; value: unknown } | { ok: false; violations: string[] }

/** A compiled schema of any accepted form. */
export interface SchemaContract {
  /** The model-facing JSON Schema: frozen lossless JSON (S6.2). */
  readonly jsonSchema: JsonSchema
  /**
   * Validates `value`; on success yields the value to keep (a Standard Schema's parsed output,
   * frozen; the input itself otherwise). Synchronous unless a Standard Schema validates
   * asynchronously. Never rejects.
   */
  readonly parse: (value: unknown, root: ValidationRoot) => ParseOutcome | Promise<ParseOutcome>
  /** True iff the JSON Schema alone decides (DSL and subset schemas): no `output.validate` needed. */
  readonly exact: boolean
}

function schemaError(message: string) {
  return codedError('UNSUPPORTED_SCHEMA', message)
}

/** What `validatorContract` builds a contract from. */
interface ValidatorContractOptions {
  jsonSchema: JsonSchema
  /** The validator of `jsonSchema`. */
  check: CompiledValidator
  /** True iff `check` alone decides (the own validator on a subset schema). */
  exact: boolean
}

/** The contract whose `parse` accepts exactly the values `check` finds no violation in. */
function validatorContract({ jsonSchema, check, exact }: ValidatorContractOptions): SchemaContract {
  return {
    jsonSchema,
    exact,
    parse: (value, root) => {
      const violations = check(value, root)
      return violations.length === 0 ? { ok: true, value } : { ok: false, violations }
    },
  }
}

/** The exact contract of a subset schema, checked by the own validator. */
function subsetContract(schema: JsonSchema): SchemaContract {
  return validatorContract({ jsonSchema: schema, check: compileValidator(schema), exact: true })
}

/** A plain JSON Schema (frozen): the own validator inside the subset, ajv outside it (S6.5). */
function jsonSchemaContract(schema: JsonSchema, where: string): SchemaContract {
  const { violations } = parseSchema(schema, where)
  if (violations.length === 0) return subsetContract(schema)
  const check = compileWithAjv(schema, { where, why: violations[0]! })
  return validatorContract({ jsonSchema: schema, check, exact: false })
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    value !== null && typeof value === 'object' && typeof (value as { then?: unknown }).then === 'function'
  )
}

/**
 * A Standard Schema (S6.1–S6.3): the library validates; its issues become violations, written
 * by the own validator when the converted schema is in the subset and reports something, else
 * `"<path>" <library message>`. A parsed value that is not lossless JSON is a violation.
 */
function standardContract(schema: object, io: 'input' | 'output', where: string): SchemaContract {
  const props = standardProps(schema)!
  const jsonSchema = standardJsonSchema(schema, io, where)
  const own =
    parseSchema(jsonSchema, where).violations.length === 0 ? compileValidator(jsonSchema) : undefined
  const settle = (result: unknown, value: unknown, root: ValidationRoot): ParseOutcome => {
    const issues = (result as { issues?: unknown } | null)?.issues
    if (issues !== undefined) {
      const mine = own?.(value, root) ?? []
      return { ok: false, violations: mine.length > 0 ? mine : issueViolations(issues, root) }
    }
    let snap: ReturnType<typeof snapshotJson>
    try {
      snap = snapshotJson((result as { value?: unknown } | null)?.value, { freeze: true, root })
    } catch (error) {
      return {
        ok: false,
        violations: [`"${root}" could not be read after validation: ${errorMessage(error)}`],
      }
    }
    if (!snap.ok) {
      return {
        ok: false,
        violations: [
          `"${root}" was turned by the schema into a value that is not lossless JSON: ${snap.reason}`,
        ],
      }
    }
    return { ok: true, value: snap.value }
  }
  const failed = (root: ValidationRoot, error: unknown): ParseOutcome => ({
    ok: false,
    violations: [`"${root}" could not be validated: ${errorMessage(error)}`],
  })
  return {
    jsonSchema,
    exact: false,
    parse: (value, root) => {
      let result: unknown
      try {
        result = props.validate(value)
      } catch (error) {
        return failed(root, error)
      }
      if (!isThenable(result)) return settle(result, value, root)
      return Promise.resolve(result).then(
        (settled) => settle(settled, value, root),
        (error: unknown) => failed(root, error),
      )
    },
  }
}

/** A frozen snapshot of a plain JSON Schema object, or an `UNSUPPORTED_SCHEMA` naming `where`. */
function snapshotSchema(schema: unknown, where: string): JsonSchema {
  let snap: ReturnType<typeof snapshotJson>
  try {
    snap = snapshotJson(schema, { root: where, freeze: true })
  } catch (error) {
    throw schemaError(`${where} could not be read: ${errorMessage(error)}`)
  }
  if (!snap.ok) throw schemaError(snap.reason)
  return snap.value as JsonSchema
}

/** True iff a `parameters` value reads as a JSON Schema root rather than a DSL property map (S6.4). */
function isJsonSchemaRoot(spec: object): boolean {
  try {
    const { type, $schema } = spec as Record<string, unknown>
    return typeof type === 'string' || typeof $schema === 'string'
  } catch {
    return false
  }
}

/**
 * Compiles `parameters`: a Standard Schema (its input side), a plain JSON Schema whose root is
 * `type: "object"`, or the DSL property map (S1.4). Throws `UNSUPPORTED_SCHEMA` for author errors.
 */
export function parametersContract(spec: unknown): SchemaContract {
  if (standardProps(spec) !== undefined) {
    const contract = standardContract(spec as object, 'input', 'parameters')
    if (contract.jsonSchema.type !== 'object') {
      throw schemaError('parameters must describe an object (its JSON Schema needs type "object")')
    }
    return contract
  }
  if (spec !== null && typeof spec === 'object' && isJsonSchemaRoot(spec)) {
    const schema = snapshotSchema(spec, 'parameters')
    if (schema.type !== 'object') throw schemaError('parameters as JSON Schema must have type "object"')
    return jsonSchemaContract(schema, 'parameters')
  }
  const schema = compileParameters(spec)
  return subsetContract(schema)
}

const ANY_VALUE = compileValueSchema({ type: 'json' })

/**
 * Compiles `output.schema`: absent means any lossless JSON value (S6.7); a Standard Schema is
 * validated by its library; otherwise a DSL node, or — when it carries `$schema` or is not DSL —
 * a plain JSON Schema. Throws `UNSUPPORTED_SCHEMA` for author errors.
 */
export function outputContract(spec: unknown): SchemaContract {
  if (spec === undefined) return subsetContract(ANY_VALUE)
  if (standardProps(spec) !== undefined) return standardContract(spec as object, 'input', 'output.schema')
  const dialect = spec !== null && typeof spec === 'object' && typeof (spec as { $schema?: unknown }).$schema
  if (dialect === 'string') return jsonSchemaContract(snapshotSchema(spec, 'output.schema'), 'output.schema')
  let dslError: unknown
  try {
    const schema = compileValueSchema(spec)
    return subsetContract(schema)
  } catch (error) {
    dslError = error
  }
  // Not DSL: a plain JSON Schema, when it is one; else the DSL's own message says what is wrong.
  const schema = snapshotSchema(spec, 'output.schema')
  try {
    return jsonSchemaContract(schema, 'output.schema')
  } catch (error) {
    if (isAjvMissing(error)) throw error
    throw dslError
  }
}
