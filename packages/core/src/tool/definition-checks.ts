/**
 * The checks of a tool definition (SPEC D2.1–D2.11), with one wording for every member that
 * both `defineTool` (D3.2) and registration check: the callers differ only in the `prefix`
 * that names the definition.
 */

import { type AnyToolDefinition, RUN_CODE, TOOL_NAME_PATTERN } from '../contract/definition.js'
import { isToolEffect, type ToolEffect } from '../contract/effect.js'
import { definitionError, errorMessage } from '../foundation/errors.js'
import { frozenSnapshotOrThrow } from '../foundation/frozen.js'
import { type JsonValue, snapshotJson } from '../foundation/lossless-json.js'
import { checkProvenance } from '../provenance/label.js'
import { assertSupportedSchema } from '../schema/subset.js'
import { copyArgumentCheck } from './argument-checks.js'

const OPTIONAL_FUNCTIONS = ['isConcurrencySafe', 'finalizeContent', 'presentCall', 'presentResult'] as const

/** Reads `object[key]` once; a throwing getter becomes `INVALID_DEFINITION`. */
function read(object: object, key: string, what: string): unknown {
  try {
    return (object as Record<string, unknown>)[key]
  } catch (error) {
    throw definitionError(`${what} could not be read: ${errorMessage(error)}`)
  }
}

/**
 * Throws `INVALID_DEFINITION` unless `name` matches the tool-name pattern (D2.1) and is not
 * the reserved `run_code` (D2.2); `lead` starts the message.
 */
export function checkToolName(name: unknown, lead = ''): asserts name is string {
  if (typeof name !== 'string' || !TOOL_NAME_PATTERN.test(name)) {
    throw definitionError(`${lead}tool name "${printable(name)}" must match ${TOOL_NAME_PATTERN}`)
  }
  if (name === RUN_CODE)
    throw definitionError(`${lead}tool name "${RUN_CODE}" is reserved for the Code Mode transport`)
}

/** Throws `INVALID_DEFINITION` (`<prefix>description must be a string`) unless it is one (D2.3). */
export function checkDescription(description: unknown, prefix: string): asserts description is string {
  if (typeof description !== 'string') throw definitionError(`${prefix}description must be a string`)
}

/** Throws `INVALID_DEFINITION` unless `effect` is absent or one of the three classes (F1.1). */
export function checkEffect(effect: unknown, prefix: string): asserts effect is ToolEffect | undefined {
  if (effect !== undefined && !isToolEffect(effect)) {
    throw definitionError(`${prefix}effect must be 'read', 'idempotent' or 'write' (absent means 'write')`)
  }
}

/** Throws `INVALID_DEFINITION` unless `timeoutMs` is absent or a positive finite number (D2.9). */
export function checkTimeoutMs(timeoutMs: unknown, prefix: string): asserts timeoutMs is number | undefined {
  if (timeoutMs === undefined) return
  if (typeof timeoutMs !== 'number' || !Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw definitionError(`${prefix}timeoutMs must be a positive finite number`)
  }
}

/** Options of `checkFunction`. */
export interface FunctionCheck {
  /** The member's name in the message, e.g. `output.render`. */
  readonly label: string
  /** What names the definition at the start of the message. */
  readonly prefix: string
  /** Whether the member may be absent (`undefined`). */
  readonly optional: boolean
}

/** Throws `INVALID_DEFINITION` unless `value` is a function, or absent when optional (D2.8). */
export function checkFunction(value: unknown, { label, prefix, optional }: FunctionCheck): void {
  if (optional && value === undefined) return
  if (typeof value !== 'function') {
    throw definitionError(`${prefix}${label} must be ${optional ? 'absent or ' : ''}a function`)
  }
}

function printable(name: unknown): string {
  if (typeof name === 'string') return name
  try {
    return typeof name === 'symbol' ? String(name.description) : String(name)
  } catch {
    return '<unprintable>'
  }
}

function isObject(value: unknown): value is object {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

/** A frozen lossless snapshot of `value`, or `undefined` when it is not lossless JSON (or a getter threw). */
function frozenSnapshot(value: unknown): JsonValue | undefined {
  try {
    const snap = snapshotJson(value, { freeze: true })
    return snap.ok ? snap.value : undefined
  } catch {
    return undefined
  }
}

/**
 * Checks a tool definition as registration does and returns the frozen copy a registry
 * stores (D2.11): each member is read once, top-level and `output` members are copied,
 * `parameters` and `output.schema` become frozen lossless snapshots, and optional members
 * that are absent (or `undefined`) stay absent. Throws `INVALID_DEFINITION` for a bad name
 * (D2.1), the reserved `run_code` (D2.2), a non-string description (D2.3), parameters that
 * are not a lossless JSON object (D2.4), a malformed `output` (D2.6), a member that is not a
 * function (D2.8) or a bad `timeoutMs` (D2.9), and `UNSUPPORTED_SCHEMA` for an
 * `output.schema` outside the subset (D2.7). Raw `parameters` may use any JSON Schema
 * keyword (D2.5). Never mutates `def`. The copy of a `defineTool` definition keeps its
 * argument check (`checkToolArguments`, A1.8).
 */
export function assertToolDefinition(def: unknown): AnyToolDefinition {
  if (!isObject(def)) throw definitionError('a tool definition must be an object')
  const name = read(def, 'name', 'tool definition name')
  checkToolName(name)
  const what = `tool "${name}"`
  const prefix = `${what} `
  const description = read(def, 'description', `${what} description`)
  checkDescription(description, prefix)

  const parameters = frozenSnapshot(read(def, 'parameters', `${what} parameters`))
  if (!isObject(parameters)) throw definitionError(`${what} parameters must be a lossless JSON object`)

  const outputMessage = `${what} must declare output { schema, render, presentationMeta? }`
  const output = read(def, 'output', `${what} output`)
  if (!isObject(output)) throw definitionError(outputMessage)
  const rawSchema = read(output, 'schema', `${what} output.schema`)
  const render = read(output, 'render', `${what} output.render`)
  const presentationMeta = read(output, 'presentationMeta', `${what} output.presentationMeta`)
  const validate = read(output, 'validate', `${what} output.validate`)
  if (rawSchema === undefined || typeof render !== 'function') throw definitionError(outputMessage)
  if (presentationMeta !== undefined && typeof presentationMeta !== 'function')
    throw definitionError(outputMessage)
  checkFunction(validate, { label: 'output.validate', prefix, optional: true })
  const schema = frozenSnapshotOrThrow(rawSchema, {
    root: 'schema',
    code: 'UNSUPPORTED_SCHEMA',
    unreadable: (message) => `unsupported JSON schema: reading schema failed: ${message}`,
    notLossless: (reason) => `unsupported JSON schema: ${reason}`,
  })
  // With its own validator, the schema only documents the value (D1.5).
  if (validate === undefined) assertSupportedSchema(schema)

  const execute = read(def, 'execute', `${what} execute`)
  checkFunction(execute, { label: 'execute', prefix, optional: false })
  const copy: Record<string, unknown> = {
    name,
    description,
    parameters,
    output: Object.freeze({
      schema,
      render,
      ...(presentationMeta === undefined ? {} : { presentationMeta }),
      ...(validate === undefined ? {} : { validate }),
    }),
    execute,
  }
  for (const key of OPTIONAL_FUNCTIONS) {
    const member = read(def, key, `${what} ${key}`)
    checkFunction(member, { label: key, prefix, optional: true })
    if (member !== undefined) copy[key] = member
  }
  const timeoutMs = read(def, 'timeoutMs', `${what} timeoutMs`)
  checkTimeoutMs(timeoutMs, prefix)
  if (timeoutMs !== undefined) copy.timeoutMs = timeoutMs
  const effect = read(def, 'effect', `${what} effect`)
  checkEffect(effect, prefix)
  if (effect !== undefined) copy.effect = effect
  const provenance = checkProvenance(read(def, 'provenance', `${what} provenance`), prefix)
  if (provenance !== undefined) copy.provenance = provenance
  const frozen = Object.freeze(copy) as unknown as AnyToolDefinition
  copyArgumentCheck(def, frozen)
  return frozen
}
