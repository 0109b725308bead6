/**
 * Validators for a remote server's JSON Schemas (Y2.4, Y2.5). A schema inside tooltx's enforced
 * subset gets tooltx's own validator, with the same messages a local tool gives; any other
 * schema (`$ref`, `minLength`, `pattern`, `anyOf`, … which MCP servers use freely) gets ajv,
 * the reference validator, chosen by the schema's `$schema` dialect (draft-07 or 2020-12).
 * A server's schema is untrusted input: its regular expressions run on RE2 (Y2.15, Y2.16), and
 * each schema gets its own ajv instance, so no `$id` is shared with another schema (Y2.17).
 */
import { compileValidator, type ValidationRoot } from '@tooltx/core'
import { Ajv as AjvDraft07 } from 'ajv'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { ajvLinearPattern, linearPattern, UnsafePatternError } from './linear-pattern.js'

/** The violations of `value`, `[]` when it is valid; never throws. */
export type SchemaCheck = (value: unknown, root: ValidationRoot) => string[]

/**
 * A fresh ajv instance for one schema, in its dialect (Y2.17): ajv keeps each compiled schema by
 * its `$id` and refuses an `$id` it holds, so a shared instance would refuse a tool listed again
 * (a re-list, a reconnection, another server reusing the `$id`) and let one server's `$ref`
 * reach another server's schema.
 */
function ajvFor(schema: Record<string, unknown>): AjvDraft07 | Ajv2020 {
  const options = {
    strict: false,
    allErrors: true,
    validateSchema: false,
    validateFormats: false,
    logger: false as const,
    code: { regExp: ajvLinearPattern },
  }
  const dialect = typeof schema.$schema === 'string' ? schema.$schema : ''
  // MCP's default dialect is 2020-12; servers built on older generators still declare draft-07.
  return /draft-0[4-7]/.test(dialect) ? new AjvDraft07(options) : new Ajv2020(options)
}

/** `/a/0/b` under root `arguments` → `"a[0].b"`; the empty path → `"arguments"`. */
function pathOf(instancePath: string, root: ValidationRoot): string {
  if (instancePath === '') return `"${root}"`
  const parts = instancePath
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
  return `"${parts.map((p, i) => (/^\d+$/.test(p) ? `[${p}]` : i === 0 ? p : `.${p}`)).join('')}"`
}

/**
 * Compiles `schema` once (Y2.4). Throws, with ajv's reason, when the schema cannot be compiled
 * at all, and {@link UnsafePatternError} for a pattern RE2 cannot run (Y2.16); the importer
 * reports such a tool instead of importing it.
 */
export function compileSchemaCheck(schema: Record<string, unknown>): SchemaCheck {
  try {
    return compileValidator(schema, { patterns: linearPattern })
  } catch (error) {
    // A refused pattern is final; a schema outside the subset falls through to ajv.
    if (error instanceof UnsafePatternError) throw error
  }
  const { $schema: _dialect, ...body } = schema
  const validate = ajvFor(schema).compile(body)
  return (value, root) => {
    try {
      if (validate(value)) return []
      return (validate.errors ?? []).map(
        (e) => `${pathOf(e.instancePath, root)} ${e.message ?? 'is invalid'}`,
      )
    } catch (error) {
      return [`"${root}" could not be validated (${error instanceof Error ? error.message : String(error)})`]
    }
  }
}
