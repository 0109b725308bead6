/**
 * The subset-schema validator (S4): compiles a schema into its fast test tree (`fast-test.ts`)
 * and its report (`report.ts`), and runs them: the test first, the report only when the test
 * said "invalid" or threw.
 */
import { errorMessage, type ToolError } from '../foundation/errors.js'
import { isFrozenSnapshot } from '../foundation/lossless-json.js'
import { nativePatterns, type PatternEngine } from './constraints.js'
import { declaredKeys } from './declared-keys.js'
import { arrayTest, objectTest, oneOfTest, scalarTest, type Test } from './fast-test.js'
import { jsonTest } from './json-shape.js'
import {
  anyCheck,
  arrayCheck,
  type Check,
  objectCheck,
  oneOfCheck,
  report,
  scalarCheck,
  type ValidationRoot,
} from './report.js'
import type { SchemaNode } from './schema-node.js'
import { parseSchema, unsupportedSchemaError } from './subset.js'

export type { PatternEngine } from './constraints.js'
export type { ValidationRoot } from './report.js'

/** Options of {@link compileValidator}. */
export interface ValidatorOptions {
  /**
   * Compiles each `pattern` of the schema (S4.18); default JavaScript's `RegExp` with the `u`
   * flag. A schema from an untrusted source needs a linear-time engine (RE2).
   */
  readonly patterns?: PatternEngine
}

/**
 * A compiled validator: returns the violations of `value` in order (S4.5), `[]` when valid.
 * Total: never throws, whatever `value` is (S4.1).
 */
export type CompiledValidator = (value: unknown, root: ValidationRoot) => string[]

/** The two compiled trees of one schema node. */
interface Trees {
  readonly test: Test
  readonly check: Check
}

/** Both compiled trees of a subset schema; throws the `SchemaError` of `assertSupportedSchema`. */
function compileTrees(schema: unknown, patterns: PatternEngine = nativePatterns): Trees {
  const parsed = parseSchema(schema, 'schema')
  if (parsed.violations.length > 0) throw unsupportedSchemaError(parsed.violations)
  const built = new Map<SchemaNode, Trees>()
  // Children first: the pre-order node list backwards. Iterative, so a 5,000-deep schema compiles.
  for (let i = parsed.nodes.length - 1; i >= 0; i--) {
    const node = parsed.nodes[i]!
    if (node.kind !== 'invalid') built.set(node, nodeTrees(node, built, patterns))
  }
  return built.get(parsed.root)!
}

/** The trees of one node whose children's trees are already `built`. */
function nodeTrees(
  node: Exclude<SchemaNode, { kind: 'invalid' }>,
  built: Map<SchemaNode, Trees>,
  patterns: PatternEngine,
): Trees {
  switch (node.kind) {
    case 'any':
      return { test: jsonTest, check: anyCheck }
    case 'scalar':
      return { test: scalarTest(node, patterns), check: scalarCheck(node, patterns) }
    case 'array': {
      const items = node.items === undefined ? undefined : built.get(node.items)!
      return { test: arrayTest(node, items?.test), check: arrayCheck(node, items?.check) }
    }
    case 'object': {
      // The two trees share one layout of the declared keys.
      const layout = declaredKeys(node)
      const children = (node.properties ?? []).map(({ schema }) => built.get(schema)!)
      return {
        test: objectTest(
          layout,
          children.map((child) => child.test),
        ),
        check: objectCheck(
          layout,
          children.map((child) => child.check),
        ),
      }
    }
    case 'oneOf': {
      const tests = node.branches.map((branch) => built.get(branch)!.test)
      const checks = node.branches.map((branch) => built.get(branch)!.check)
      return { test: oneOfTest(tests), check: oneOfCheck(tests, checks) }
    }
  }
}

/**
 * Compiles a subset schema (S3) into a reusable validator: closure trees built once, without
 * code generation, iteratively (a 5,000-deep schema compiles). Throws the `SchemaError` of
 * `assertSupportedSchema` when `schema` is outside the subset, and whatever `options.patterns`
 * throws for a pattern it refuses (S4.18). The validator reflects the schema as it was when
 * compiled; treat schemas as immutable.
 */
export function compileValidator(schema: unknown, options: ValidatorOptions = {}): CompiledValidator {
  const { test, check } = compileTrees(schema, options.patterns)
  return (value, root) => {
    // A frozen snapshot's containers are already proven plain, dense and lossless, so only
    // the schema's own constraints are checked.
    const trusted = isFrozenSnapshot(value)
    // Fast path: an exact verdict without messages. Anything wrong, or a throw, takes the
    // exact walk that names every violation at its path.
    try {
      if (test(value, trusted)) return []
    } catch {}
    return report(check, value, { root, trusted })
  }
}

/**
 * Internal, for the S4.16 property test (not exported from the package): the fast test's
 * verdict on `value` (`'threw'` when it threw) and the report, computed apart, each the way
 * the validator computes it (trusted iff `value` is a frozen snapshot).
 */
export function fastAndReport(
  schema: unknown,
  value: unknown,
): { fast: boolean | 'threw'; report: string[] } {
  const { test, check } = compileTrees(schema)
  const trusted = isFrozenSnapshot(value)
  let fast: boolean | 'threw'
  try {
    fast = test(value, trusted)
  } catch {
    fast = 'threw'
  }
  return { fast, report: report(check, value, { root: 'value', trusted }) }
}

const cache = new WeakMap<object, CompiledValidator | ToolError>()

/**
 * The violations of `value` against `schema` (S4), in order, `[]` when valid; paths start at
 * `root` (S4.2). Total: never throws (S4.1). The compiled validator is cached per schema object;
 * a schema outside the subset yields the single violation `"<root>" cannot be validated: <why>`.
 */
export function validateValue(schema: unknown, value: unknown, root: ValidationRoot): string[] {
  let compiled: CompiledValidator | ToolError | undefined
  const cacheable = schema !== null && typeof schema === 'object'
  if (cacheable) compiled = cache.get(schema)
  if (compiled === undefined) {
    try {
      compiled = compileValidator(schema)
    } catch (error) {
      compiled = error as ToolError
    }
    if (cacheable) cache.set(schema, compiled)
  }
  if (typeof compiled !== 'function') return [`"${root}" cannot be validated: ${errorMessage(compiled)}`]
  return compiled(value, root)
}
