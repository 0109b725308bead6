/**
 * Checks of a body's form (P8.13) and of the answer a host gives it (P8.16). The form is checked
 * when the body asks, so a mistake is the body's error, said at once; the answer is checked before
 * the body sees it, and a check failure names the field and the rule, never the value typed.
 */

import { errorMessage } from '../foundation/errors.js'
import type { JsonObject, JsonValue } from '../foundation/lossless-json.js'
import { snapshotJson } from '../foundation/lossless-json.js'
import type { ElicitForm, ElicitReply, FormContent } from './elicitation.js'

const isObject = (v: unknown): v is JsonObject => v !== null && typeof v === 'object' && !Array.isArray(v)
const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === 'string')
const isCount = (v: unknown) => v === undefined || (Number.isSafeInteger(v) && (v as number) >= 0)
const isTitled = (v: unknown): v is { const: string; title: string }[] =>
  Array.isArray(v) &&
  v.length > 0 &&
  v.every((o) => isObject(o) && typeof o.const === 'string' && typeof o.title === 'string')

/** The keywords each kind of field may have besides `type`, `title`, `description` and `default`. */
const KEYWORDS: Record<string, readonly string[]> = {
  string: ['minLength', 'maxLength', 'format', 'enum', 'enumNames', 'oneOf'],
  number: ['minimum', 'maximum'],
  integer: ['minimum', 'maximum'],
  boolean: [],
  array: ['minItems', 'maxItems', 'items'],
}
const FORMATS = ['email', 'uri', 'date', 'date-time']

/** The choices of a field (`enum`, `oneOf`, `items.enum`, `items.anyOf`), or `undefined`. */
function choicesOf(field: JsonObject): readonly string[] | undefined {
  const items = isObject(field.items) ? field.items : undefined
  const listed = field.enum ?? field.oneOf ?? items?.enum ?? items?.anyOf
  if (!Array.isArray(listed)) return undefined
  return listed.map((c) => (isObject(c) ? (c.const as string) : (c as string)))
}

/** Why `field` is not a form field MCP allows, or `undefined`. */
function fieldProblem(field: JsonValue): string | undefined {
  if (!isObject(field)) return 'is not an object'
  const type = field.type
  const allowed = typeof type === 'string' ? KEYWORDS[type] : undefined
  if (allowed === undefined)
    return 'has no "type" a form field may have (string, number, integer, boolean or array); forms are flat'
  for (const key of Object.keys(field)) {
    if (!['type', 'title', 'description', 'default', ...allowed].includes(key))
      return `has "${key}", which a form field of type ${type} may not have`
  }
  if (field.title !== undefined && typeof field.title !== 'string')
    return 'has a "title" that is not a string'
  if (field.description !== undefined && typeof field.description !== 'string')
    return 'has a "description" that is not a string'
  if (type === 'string') {
    if (!isCount(field.minLength) || !isCount(field.maxLength))
      return 'has a minLength or maxLength that is not a whole number >= 0'
    if (field.format !== undefined && !FORMATS.includes(field.format as string))
      return `has a "format" other than ${FORMATS.join(', ')}`
    if (field.enum !== undefined && !(isStrings(field.enum) && field.enum.length > 0))
      return 'has an "enum" that is not a non-empty array of strings'
    if (
      field.enumNames !== undefined &&
      !(
        isStrings(field.enumNames) &&
        Array.isArray(field.enum) &&
        field.enumNames.length === field.enum.length
      )
    )
      return 'has "enumNames" that are not one string for each "enum" value'
    if (field.oneOf !== undefined && !isTitled(field.oneOf))
      return 'has a "oneOf" that is not a non-empty array of { const, title } strings'
  }
  if (
    (type === 'number' || type === 'integer') &&
    [field.minimum, field.maximum].some((n) => n !== undefined && typeof n !== 'number')
  )
    return 'has a minimum or maximum that is not a number'
  if (type === 'array') {
    if (!isCount(field.minItems) || !isCount(field.maxItems))
      return 'has a minItems or maxItems that is not a whole number >= 0'
    const items = field.items
    const ok =
      isObject(items) &&
      ((items.type === 'string' &&
        isStrings(items.enum) &&
        items.enum.length > 0 &&
        Object.keys(items).length === 2) ||
        (isTitled(items.anyOf) && Object.keys(items).length === 1))
    if (!ok)
      return 'has "items" other than { type: "string", enum: [...] } or { anyOf: [{ const, title }, ...] }'
  }
  if (field.default !== undefined && formValueProblem(field, field.default) !== undefined)
    return 'has a "default" that does not fit the field'
  return undefined
}

/**
 * Why a form a body passes to `run.elicit` (P8.13), already a frozen lossless snapshot, is not a
 * form MCP allows (`requestedSchema` a flat object schema whose fields are strings, numbers,
 * booleans or multi-choice string arrays, `required` naming fields), by path; `undefined` when it is.
 */
export function formProblem(form: JsonValue): string | undefined {
  if (!isObject(form)) return 'the form must be an object { message, requestedSchema }'
  if (typeof form.message !== 'string' || form.message.trim() === '')
    return 'the form needs a "message": a non-empty string saying what the person is asked'
  const schema = form.requestedSchema
  if (!isObject(schema) || schema.type !== 'object' || !isObject(schema.properties))
    return 'requestedSchema must be { type: "object", properties: { <field>: <schema>, ... }, required? }'
  for (const key of Object.keys(schema)) {
    if (!['type', 'properties', 'required', '$schema'].includes(key))
      return `requestedSchema has "${key}"; a form schema has only type, properties and required`
  }
  for (const [name, field] of Object.entries(schema.properties)) {
    const problem = fieldProblem(field)
    if (problem !== undefined) return `requestedSchema.properties.${name} ${problem}`
  }
  const required = schema.required
  if (
    required !== undefined &&
    !(isStrings(required) && required.every((n) => Object.hasOwn(schema.properties as object, n)))
  )
    return 'requestedSchema.required must be an array of the names of its properties'
  return undefined
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i

/** Whether `text` is a real calendar date `YYYY-MM-DD`. */
function isDate(text: string): boolean {
  const m = DATE.exec(text)
  if (m === null) return false
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])))
  return d.getUTCMonth() === Number(m[2]) - 1 && d.getUTCDate() === Number(m[3])
}

/** Why `text` is not of `format`, or `undefined`. */
function formatProblem(format: unknown, text: string): string | undefined {
  if (format === 'email' && !EMAIL.test(text)) return 'must be an e-mail address'
  if (format === 'uri' && !URL.canParse(text)) return 'must be an absolute URI'
  if (format === 'date' && !isDate(text)) return 'must be a date YYYY-MM-DD'
  if (format === 'date-time' && !(DATE_TIME.test(text) && isDate(text.slice(0, 10))))
    return 'must be an RFC 3339 date-time'
  return undefined
}

/**
 * Why `value` does not fit the form field `field`, or `undefined` (P8.16): its type, whole number,
 * bounds, length in code points, format, choices, repeated choices, item counts. Never names the
 * value. Total for any field, checked or not, so a terminal can re-ask a server's question too.
 */
export function formValueProblem(field: JsonObject, value: JsonValue): string | undefined {
  const choices = choicesOf(field)
  switch (field.type) {
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'must be true or false'
    case 'number':
    case 'integer': {
      if (typeof value !== 'number') return `must be a number`
      if (field.type === 'integer' && !Number.isInteger(value)) return 'must be a whole number'
      if (typeof field.minimum === 'number' && value < field.minimum)
        return `must be at least ${field.minimum}`
      if (typeof field.maximum === 'number' && value > field.maximum)
        return `must be at most ${field.maximum}`
      return undefined
    }
    case 'array': {
      if (!isStrings(value)) return 'must be an array of strings'
      if (choices !== undefined && !value.every((v) => choices.includes(v)))
        return "must hold only the form's choices"
      if (new Set(value).size !== value.length) return 'must not repeat a choice'
      if (typeof field.minItems === 'number' && value.length < field.minItems)
        return `must hold at least ${field.minItems} choices`
      if (typeof field.maxItems === 'number' && value.length > field.maxItems)
        return `must hold at most ${field.maxItems} choices`
      return undefined
    }
    default: {
      if (typeof value !== 'string') return 'must be a string'
      if (choices !== undefined)
        return choices.includes(value) ? undefined : "must be one of the form's choices"
      const length = [...value].length
      if (typeof field.minLength === 'number' && length < field.minLength)
        return `must be at least ${field.minLength} characters`
      if (typeof field.maxLength === 'number' && length > field.maxLength)
        return `must be at most ${field.maxLength} characters`
      return formatProblem(field.format, value)
    }
  }
}

/** A `cancel` the runtime made, saying why (P8.14). */
export const cancelled = (reason: string): ElicitReply => Object.freeze({ action: 'cancel', reason })

/**
 * What a host's answer to `form` means for the body (P8.16), total: a well-formed `decline` or
 * `cancel` as it is (a `cancel`'s string `reason` kept); an `accept` whose `content` is lossless JSON
 * holding only the form's fields, every required one, each fitting its field, frozen; anything else
 * a `cancel` whose reason names the field and the rule it broke, never what was typed.
 */
export function checkedReply(form: ElicitForm, raw: unknown): ElicitReply {
  let snap: ReturnType<typeof snapshotJson>
  try {
    snap = snapshotJson(raw, { freeze: true, root: 'answer' })
  } catch (error) {
    return cancelled(`the answer could not be read: ${errorMessage(error)}`)
  }
  const reply = snap.ok ? snap.value : undefined
  if (!isObject(reply)) return cancelled('the answer was not { action, content? } lossless JSON')
  if (reply.action === 'decline') return Object.freeze({ action: 'decline' })
  if (reply.action === 'cancel')
    return typeof reply.reason === 'string' ? cancelled(reply.reason) : Object.freeze({ action: 'cancel' })
  if (reply.action !== 'accept') return cancelled('the answer had no action accept, decline or cancel')
  const content = reply.content ?? Object.freeze({})
  if (!isObject(content)) return cancelled('the accepted answer had content that is not an object')
  const schema = form.requestedSchema
  // The form passed `formProblem`: its fields are the JSON objects that check read.
  const fields = schema.properties as unknown as Record<string, JsonObject>
  for (const [name, value] of Object.entries(content)) {
    const field = Object.hasOwn(fields, name) ? fields[name] : undefined
    if (field === undefined)
      return cancelled(`the answer did not fit the form: ${name} is not a field of the form`)
    const problem = formValueProblem(field, value)
    if (problem !== undefined) return cancelled(`the answer did not fit the form: ${name} ${problem}`)
  }
  const missing = (schema.required ?? []).find((name) => !Object.hasOwn(content, name))
  if (missing !== undefined) return cancelled(`the answer did not fit the form: ${missing} is required`)
  return Object.freeze({ action: 'accept', content: content as Readonly<FormContent> })
}
