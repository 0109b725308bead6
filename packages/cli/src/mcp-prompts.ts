/**
 * What the MCP servers of `tooltx run --mcp` send the person (Y4.7, Y4.8, Y4.10): their
 * questions (elicitation) asked at the terminal field by field, their requests for a completion
 * of the run's model put to the person at the terminal, and their log messages on the timeline.
 * The forms tool bodies ask with `run.elicit` (K2.32) are asked the same way.
 */
import type { SamplingAsk } from '@tooltx/agent'
import type { ApprovalOutcome, ApprovalRequest, Elicitor, ElicitReply, JsonObject } from '@tooltx/core'
import { formValueProblem } from '@tooltx/core/internal'
import type { ElicitAnswer, ElicitHandler, ElicitQuestion, ServerLogEntry } from '@tooltx/mcp'
import type { Output } from './display/output.js'
import { terminalSafe } from './display/terminal-text.js'
import { wrapLine } from './display/wrap.js'

/** One field of an MCP form schema, as far as the prompt reads it. */
interface Field {
  type?: string
  title?: string
  description?: string
  default?: unknown
  enum?: unknown[]
  oneOf?: { const?: unknown; title?: string }[]
  items?: { enum?: unknown[]; anyOf?: { const?: unknown; title?: string }[] }
}

type Value = string | number | boolean | string[]

/** The allowed values of a field (single- or multi-select), or `undefined` for a free one. */
function choicesOf(field: Field): string[] | undefined {
  const listed = field.enum ?? field.oneOf?.map((option) => option.const) ?? field.items?.enum
  const items = listed ?? field.items?.anyOf?.map((option) => option.const)
  return items?.map(String)
}

/** The answer typed for `field`, read as its type; `undefined` when it does not fit. */
function parseAnswer(field: Field, typed: string): Value | undefined {
  const choices = choicesOf(field)
  const pick = (word: string) => {
    const byIndex = /^\d+$/.test(word) ? choices?.[Number(word) - 1] : undefined
    return byIndex ?? (choices === undefined || choices.includes(word) ? word : undefined)
  }
  switch (field.type) {
    case 'boolean':
      return /^(y|yes|true)$/i.test(typed) ? true : /^(n|no|false)$/i.test(typed) ? false : undefined
    case 'integer':
    case 'number': {
      const number = Number(typed)
      const fits = Number.isFinite(number) && (field.type === 'number' || Number.isInteger(number))
      return fits ? number : undefined
    }
    case 'array': {
      const picked = typed.split(',').map((word) => pick(word.trim()))
      return picked.every((word) => word !== undefined) ? (picked as string[]) : undefined
    }
    default:
      return pick(typed)
  }
}

/** The hint after a field's label: its choices (numbered), its type and its default. */
function hintOf(field: Field): string {
  const choices = choicesOf(field)
  const parts = [
    choices === undefined
      ? (field.type ?? 'string')
      : `${field.type === 'array' ? 'one or more of, comma-separated: ' : ''}${choices.map((c, i) => `${i + 1}=${c}`).join(', ')}`,
    ...(field.default === undefined ? [] : [`Enter for ${JSON.stringify(field.default)}`]),
  ]
  return parts.join('; ')
}

/** Why a form was cancelled when no one was at a terminal to answer it (K2.32). */
const NO_TERMINAL = 'no one could be asked (stdin or stdout is not a terminal)'

/**
 * Asks the person at the terminal to fill a form (Y4.7, K2.32): shows `about`, asks
 * `Answer? [y/N]` (anything but yes declines), then each field with its choices and default:
 * Enter keeps the default (or skips an optional field), an answer that does not fit asks again,
 * after a line saying which rule it broke when it was of the right type.
 * Ctrl-C cancels and calls `onInterrupt`. Without a terminal it says so on stderr and resolves
 * `undefined`, asking nothing.
 */
async function askAtTerminal(
  out: Output,
  onInterrupt: () => void,
  about: string,
  schema: { readonly required?: readonly string[]; readonly properties: object },
  signal: AbortSignal,
): Promise<ElicitReply | undefined> {
  const prompt = out.prompt
  if (prompt === undefined) {
    out.error(`tooltx: ${terminalSafe(about)} — but ${NO_TERMINAL}, so the question was cancelled`)
    return undefined
  }
  const ask = async (text: string) => {
    const answer = await prompt.ask(text, signal)
    if (answer === undefined) onInterrupt()
    return answer === undefined || signal.aborted ? undefined : answer.trim()
  }
  out.line(terminalSafe(`    ┌ ${about}`))
  const go = await ask('    │ Answer? [y/N] ')
  if (go === undefined) return { action: 'cancel' }
  if (!/^y(es)?$/i.test(go)) return { action: 'decline' }
  const content: Record<string, Value> = {}
  const required = new Set(schema.required ?? [])
  for (const [name, field] of Object.entries(schema.properties) as [string, Field][]) {
    const label = `${field.title ?? name}${field.description === undefined ? '' : ` — ${field.description}`}`
    for (;;) {
      const typed = await ask(`    │ ${label} (${hintOf(field)}): `)
      if (typed === undefined) return { action: 'cancel' }
      if (typed === '' && (field.default !== undefined || !required.has(name))) break
      const value = parseAnswer(field, typed)
      // A value of the right type may still break a rule of its field (a bound, a length, a
      // format): say which, and ask again.
      const problem = value === undefined ? undefined : formValueProblem(field as JsonObject, value)
      if (problem !== undefined) out.line(terminalSafe(`    │ ${field.title ?? name} ${problem}`))
      else if (value !== undefined) {
        content[name] = value
        break
      }
    }
  }
  out.line('    └ answered')
  return { action: 'accept', content }
}

/**
 * The CLI's answer to a server's question (Y4.7), asked at the terminal as `askAtTerminal` says;
 * without a terminal the question is cancelled.
 */
export function terminalElicitor(out: Output, onInterrupt: () => void): ElicitHandler {
  return async (question: ElicitQuestion): Promise<ElicitAnswer> => {
    const about = `the MCP server "${question.server}" asks: ${question.message}`
    const answer = await askAtTerminal(out, onInterrupt, about, question.requestedSchema, question.signal)
    return answer ?? { action: 'cancel' }
  }
}

/**
 * The CLI's answer to a form a tool body asks with `run.elicit` (K2.32), asked at the terminal as
 * `askAtTerminal` says, under `the tool <name> asks: <message>`; without a terminal the body reads a
 * `cancel` whose reason says no one could be asked.
 */
export function terminalForms(out: Output, onInterrupt: () => void): Elicitor {
  return async (request) => {
    const about = `the tool ${request.name} asks: ${request.message}`
    const answer = await askAtTerminal(out, onInterrupt, about, request.requestedSchema, request.signal)
    return answer ?? { action: 'cancel', reason: NO_TERMINAL }
  }
}

/** Prints a server's log message on the timeline at its level (Y4.8): `· MCP server "<name>" <level>: <data>`. */
export function timelineLog(out: Output): (entry: ServerLogEntry) => void {
  return ({ server, level, logger, data }) => {
    const text = typeof data === 'string' ? data : JSON.stringify(data)
    const from = logger === undefined ? '' : ` (${logger})`
    out.line(terminalSafe(`    · MCP server "${server}"${from} ${level}: ${text}`))
  }
}

/**
 * The CLI's answer to the approver's question about a server's request for a completion
 * (Y4.10): at a terminal it shows the server, the model and the token bound, then everything
 * that would be sent — the server's system prompt and each message — and asks `Allow? [y/N]`;
 * only `y`/`yes` allows. `--yes` never reaches it. Without a terminal it refuses and says so on
 * stderr; Ctrl-C cancels and calls `onInterrupt`.
 */
export async function askSampling(
  out: Output,
  request: ApprovalRequest,
  onInterrupt: () => void,
): Promise<ApprovalOutcome> {
  const ask = request.arguments as unknown as SamplingAsk
  const about = `the MCP server "${ask.server}" asks ${ask.model} for a completion (at most ${ask.maxTokens} tokens)`
  const prompt = out.prompt
  if (prompt === undefined) {
    out.error(
      `tooltx: ${terminalSafe(about)} — but no one could allow it (stdin or stdout is not a terminal), so it was refused`,
    )
    return 'unavailable'
  }
  out.line(terminalSafe(`    ┌ ${about}, sending:`))
  const sent = [
    ...(ask.systemPrompt === undefined ? [] : [{ role: 'system', text: ask.systemPrompt }]),
    ...ask.messages,
  ]
  for (const { role, text } of sent)
    for (const part of wrapLine(terminalSafe(`    │ ${role}: ${text}`), out.columns, '    │   '))
      out.line(part)
  const answer = await prompt.ask('    └ Allow? [y/N] ', request.signal)
  if (answer === undefined) {
    onInterrupt()
    return 'cancelled'
  }
  return /^\s*y(es)?\s*$/i.test(answer) ? 'allowed-once' : 'rejected'
}
