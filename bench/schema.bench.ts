/**
 * The schema validator against ajv (JSON Schema 2020-12) on the same schemas: compiling a
 * 10-property tool schema and a 50-tool catalog, then validating valid and invalid arguments.
 * Our validator builds a closure tree; ajv generates code with `new Function`.
 */
import vm from 'node:vm'
import { compileValidator, type JsonSchema, snapshotJson } from '@tooltx/core'
import { compileParameters } from '@tooltx/core/internal'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { type BenchSection, measure, ratio, ratioAtMost, speedupAtLeast } from './harness.js'

/** A realistic 10-property tool schema: scalars, enums, a nested object, arrays, a oneOf. */
function toolSchema(variant: number): JsonSchema {
  return compileParameters({
    [`path${variant}`]: { type: 'string', required: true, description: 'Absolute path' },
    limit: { type: 'integer', description: 'Maximum lines' },
    offset: { type: 'integer' },
    encoding: { type: 'string', enum: ['utf8', 'latin1', 'base64'] },
    recursive: { type: 'boolean' },
    pattern: { type: 'string', required: true },
    tags: { type: 'array', items: { type: 'string' } },
    range: {
      type: 'object',
      additionalProperties: false,
      properties: { start: { type: 'integer', required: true }, end: { type: 'integer', required: true } },
    },
    target: { oneOf: [{ type: 'string' }, { type: 'null' }] },
    extra: { type: 'json' },
  })
}

/** Live `node:vm` contexts for the rows that check compile time does not grow with them. */
const REALMS = 1000

const schema = toolSchema(0)
const catalog = Array.from({ length: 50 }, (_, i) => toolSchema(i))
// The same schemas as plain JSON (say, written by hand or loaded from a file): the DSL's
// verified mark is lost, so the compile re-proves plainness and losslessness.
const plainSchema = structuredClone(schema)
const plainCatalog = catalog.map((s) => structuredClone(s))

const valid = Object.freeze({
  path0: '/etc/hosts',
  limit: 100,
  offset: 0,
  encoding: 'utf8',
  recursive: false,
  pattern: 'TODO',
  tags: ['a', 'b', 'c'],
  range: { start: 1, end: 20 },
  target: null,
  extra: { note: 'x' },
})
const invalid = Object.freeze({
  limit: 1.5,
  encoding: 'utf16',
  pattern: 'TODO',
  tags: ['a', 2],
  range: { start: 1, end: 'x', step: 1 },
  target: 3,
})

export default async function schemaBench(): Promise<BenchSection[]> {
  const ajv = new Ajv2020({ strict: false, ownProperties: true, logger: false })
  const ajvAll = new Ajv2020({ strict: false, ownProperties: true, logger: false, allErrors: true })
  // ajv caches compiled schemas per schema object; removing the entry makes every compile real.
  const ajvCompile = (s: JsonSchema) => {
    ajv.compile(s)
    ajv.removeSchema(s)
  }

  const oursCompile = await measure('tooltx compileValidator (10 properties)', () => compileValidator(schema))
  const oursPlainCompile = await measure(
    'tooltx compileValidator (10 properties, plain JSON, not from the DSL)',
    () => compileValidator(plainSchema),
  )
  const ajvCompile1 = await measure('ajv compile (10 properties)', () => ajvCompile(schema), { rounds: 15 })
  const oursCatalog = await measure('tooltx compile 50-tool catalog', () => {
    for (const s of catalog) compileValidator(s)
  })
  const oursPlainCatalog = await measure(
    'tooltx compile 50-tool catalog (plain JSON, not from the DSL)',
    () => {
      for (const s of plainCatalog) compileValidator(s)
    },
  )
  const ajvCatalog = await measure(
    'ajv compile 50-tool catalog',
    () => {
      for (const s of catalog) ajvCompile(s)
    },
    { rounds: 10, opsPerRound: 2 },
  )

  const ours = compileValidator(schema)
  const ajvValidate = ajv.compile(schema)
  const ajvAllValidate = ajvAll.compile(schema)
  if (ours(valid, 'arguments').length !== 0 || ajvValidate(valid) !== true)
    throw new Error('valid input rejected')
  if (ours(invalid, 'arguments').length === 0 || ajvValidate(invalid) !== false)
    throw new Error('invalid input accepted')
  const oursValid = await measure('tooltx validate, valid input', () => ours(valid, 'arguments'))
  // What the runtime validates: the frozen snapshot it took at entry, already proven lossless.
  const snapped = snapshotJson(valid, { freeze: true })
  if (!snapped.ok) throw new Error('valid input is not lossless')
  const frozenValid = snapped.value
  const oursSnapshot = await measure(
    'tooltx validate, valid input as a frozen snapshot (the runtime path)',
    () => ours(frozenValid, 'arguments'),
  )
  const ajvValid = await measure('ajv validate, valid input', () => ajvValidate(valid))
  const oursInvalid = await measure('tooltx validate, invalid input (all violations, messages)', () =>
    ours(invalid, 'arguments'),
  )
  const snappedInvalid = snapshotJson(invalid, { freeze: true })
  if (!snappedInvalid.ok) throw new Error('invalid input is not lossless')
  const frozenInvalid = snappedInvalid.value
  if (JSON.stringify(ours(frozenInvalid, 'arguments')) !== JSON.stringify(ours(invalid, 'arguments')))
    throw new Error('frozen snapshot path reports different violations')
  const oursSnapshotInvalid = await measure(
    'tooltx validate, invalid input as a frozen snapshot (the runtime path)',
    () => ours(frozenInvalid, 'arguments'),
  )
  const ajvInvalid = await measure('ajv validate, invalid input (first error)', () => ajvValidate(invalid))
  const ajvAllInvalid = await measure('ajv validate, invalid input (allErrors)', () =>
    ajvAllValidate(invalid),
  )

  // Last, so no other row runs beside them: live `node:vm` realms (a host that runs code in
  // `vm`, or vm contexts a major GC has not reclaimed yet). V8's `Array.prototype.fill` checks
  // every live realm's `Array.prototype`, so a compile that called it grew linearly with the
  // realm count; compile must not depend on it.
  const realms = Array.from({ length: REALMS }, () => vm.createContext({}))
  const oursRealms = await measure(
    `tooltx compileValidator (10 properties), ${REALMS} live node:vm contexts`,
    () => compileValidator(schema),
  )
  const oursRealmsCatalog = await measure(
    `tooltx compile 50-tool catalog, ${REALMS} live node:vm contexts`,
    () => {
      for (const s of catalog) compileValidator(s)
    },
  )
  realms.length = 0

  const compileSpeedup = ajvCompile1.medianNs / oursCompile.medianNs
  const catalogSpeedup = ajvCatalog.medianNs / oursCatalog.medianNs
  const plainCompileSpeedup = ajvCompile1.medianNs / oursPlainCompile.medianNs
  const plainCatalogSpeedup = ajvCatalog.medianNs / oursPlainCatalog.medianNs
  const validRatio = oursValid.medianNs / ajvValid.medianNs
  const snapshotRatio = oursSnapshot.medianNs / ajvValid.medianNs
  const invalidRatio = oursInvalid.medianNs / ajvAllInvalid.medianNs
  const snapshotInvalidRatio = oursSnapshotInvalid.medianNs / ajvAllInvalid.medianNs
  const realmsRatio = oursRealmsCatalog.medianNs / oursCatalog.medianNs
  return [
    {
      title: 'Schema validator vs ajv (JSON Schema 2020-12)',
      method:
        'A 10-property tool schema (scalars, an enum, a closed nested object, a string array, a oneOf, a json ' +
        'property) compiled from the DSL, and a 50-tool catalog of such schemas. Compile: `compileValidator` ' +
        '(closure tree, no code generation) vs `ajv.compile` (code generation; its per-schema cache entry is ' +
        'removed after each compile so every compile is real). A schema built by the DSL carries a verified mark ' +
        '(deep-frozen lossless JSON by construction), so its compile checks only the subset rules; the plain JSON ' +
        'rows compile structured clones of the same schemas, which are re-proven plain and lossless. ' +
        'Validate: the same frozen argument objects. ' +
        'Our validator always collects every violation with its message and checks losslessness; ajv is shown ' +
        'with its default first-error mode and with `allErrors: true`. Valid input costs one exact pass without ' +
        'messages; invalid input then takes a second pass that names every violation. On raw input the ' +
        'losslessness proof dominates (per object `getOwnPropertyNames` + `getOwnPropertySymbols`, per array ' +
        '`Reflect.ownKeys`, V8 runtime calls of ~20-200 ns each that ajv does not make); the frozen snapshot the ' +
        'runtime validates is already proven lossless and skips them. The last two rows compile again while ' +
        `${REALMS} \`node:vm\` contexts are alive: V8's \`Array.prototype.fill\` scans every live realm's ` +
        '`Array.prototype` (about 18 ns per realm per call), so a compile that called it slowed with the realm ' +
        'count (6x at 1,000).',
      rows: [
        oursCompile,
        oursPlainCompile,
        ajvCompile1,
        oursCatalog,
        oursPlainCatalog,
        ajvCatalog,
        oursValid,
        oursSnapshot,
        ajvValid,
        oursInvalid,
        oursSnapshotInvalid,
        ajvInvalid,
        ajvAllInvalid,
        oursRealms,
        oursRealmsCatalog,
      ],
      ratios: [
        `ajv compile / tooltx compile (10 properties) = ${ratio(ajvCompile1, oursCompile)}`,
        `ajv catalog / tooltx catalog (50 tools) = ${ratio(ajvCatalog, oursCatalog)}`,
        `ajv compile / tooltx compile, plain JSON (10 properties) = ${ratio(ajvCompile1, oursPlainCompile)}`,
        `ajv catalog / tooltx catalog, plain JSON (50 tools) = ${ratio(ajvCatalog, oursPlainCatalog)}`,
        `tooltx / ajv validate, valid input = ${ratio(oursValid, ajvValid)}`,
        `tooltx (frozen snapshot) / ajv validate, valid input = ${ratio(oursSnapshot, ajvValid)}`,
        `tooltx / ajv (allErrors) validate, invalid input = ${ratio(oursInvalid, ajvAllInvalid)}`,
        `tooltx (frozen snapshot) / ajv (allErrors) validate, invalid input = ${ratio(oursSnapshotInvalid, ajvAllInvalid)}`,
        `tooltx / ajv (first error) validate, invalid input = ${ratio(oursInvalid, ajvInvalid)}`,
        `compile with ${REALMS} live vm contexts / without (10 properties) = ${ratio(oursRealms, oursCompile)}`,
        `compile with ${REALMS} live vm contexts / without (50-tool catalog) = ${ratio(oursRealmsCatalog, oursCatalog)}`,
      ],
      targets: [
        speedupAtLeast('compile ≥ 100x faster than ajv (10 properties)', compileSpeedup, 100),
        speedupAtLeast('compile ≥ 100x faster than ajv (50-tool catalog)', catalogSpeedup, 100),
        speedupAtLeast(
          'compile ≥ 100x faster than ajv, plain JSON not from the DSL (10 properties)',
          plainCompileSpeedup,
          100,
        ),
        speedupAtLeast(
          'compile ≥ 100x faster than ajv, plain JSON not from the DSL (50-tool catalog)',
          plainCatalogSpeedup,
          100,
        ),
        ratioAtMost('validate valid input within 2x of ajv', validRatio, 2),
        ratioAtMost(
          'validate valid input within 2x of ajv, on the frozen snapshot the runtime validates',
          snapshotRatio,
          2,
        ),
        ratioAtMost('validate invalid input within 2x of ajv (allErrors)', invalidRatio, 2),
        ratioAtMost(
          'validate invalid input within 2x of ajv (allErrors), on the frozen snapshot the runtime validates',
          snapshotInvalidRatio,
          2,
        ),
        ratioAtMost(
          `compile with ${REALMS} live node:vm contexts within 1.5x of compile without (50-tool catalog)`,
          realmsRatio,
          1.5,
        ),
      ],
    },
  ]
}
