/**
 * Validators for a remote server's JSON Schemas (Y2.4, Y2.5). A schema inside tooltx's enforced
 * subset gets tooltx's own validator, with the same messages a local tool gives; any other
 * schema (`$ref`, `minLength`, `pattern`, `anyOf`, … which MCP servers use freely) gets ajv,
 * the reference validator, chosen by the schema's `$schema` dialect (draft-07 or 2020-12).
 */
import { compileValidator, type ValidationRoot } from '@tooltx/core'
import { Ajv as AjvDraft07 } from 'ajv'
import { Ajv2020 } from 'ajv/dist/2020.js'

/** The violations of `value`, `[]` when it is valid; never throws. */
export type SchemaCheck = (value: unknown, root: ValidationRoot) => string[]

type AjvInstance = AjvDraft07 | Ajv2020
let draft07: AjvInstance | undefined
let draft2020: AjvInstance | undefined

function ajvFor(schema: Record<string, unknown>): AjvInstance {
  const dialect = typeof schema.$schema === 'string' ? schema.$schema : ''
  // MCP's default dialect is 2020-12; servers built on older generators still declare draft-07.
  if (/draft-0[4-7]/.test(dialect)) {
    draft07 ??= new AjvDraft07({
      strict: false,
      allErrors: true,
      validateSchema: false,
      validateFormats: false,
    })
    return draft07
  }
  draft2020 ??= new Ajv2020({ strict: false, allErrors: true, validateSchema: false, validateFormats: false })
  return draft2020
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
 * Compiles `schema` once (Y2.4). Throws, with ajv's reason, only when the schema cannot be
 * compiled at all; the importer reports such a tool instead of importing it.
 */
export function compileSchemaCheck(schema: Record<string, unknown>): SchemaCheck {
  try {
    return compileValidator(schema)
  } catch {
    // Outside the subset: fall through to ajv.
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
