/** The check of `server/request` data (L1.10), beyond the turn checks every step event passes. */
import { type Data, isCountOrZero, isId, isIdList, isObject } from './guards.js'
import type { LogFacts } from './log-facts.js'

const DECIDERS = new Set(['policy', 'approver', 'handler'])
const OUTCOMES = {
  sampling: new Set(['answered', 'refused']),
  elicitation: new Set(['accept', 'decline', 'cancel']),
}

/**
 * The problem with a `server/request` (L1.10), `undefined` when it is well formed: it stands in
 * the open step of the open turn and names the server, the calls it arrived during, who decided
 * and the outcome; a sampling record its size, model, granted `maxTokens` and (answered) reply,
 * an elicitation its message and field names.
 */
export function checkServerRequest(state: LogFacts, data: Data): string | undefined {
  if (!state.stepOpen || data.step !== state.step) return 'server/request outside the open step'
  const { kind } = data
  if (kind !== 'sampling' && kind !== 'elicitation')
    return `server/request kind must be "sampling" or "elicitation", got ${JSON.stringify(kind) ?? String(kind)}`
  if (!isId(data.server) || !isIdList(data.calls) || !DECIDERS.has(data.by as string))
    return 'server/request needs { server, calls: [<call ids>], by: "policy" | "approver" | "handler" }'
  if (!OUTCOMES[kind].has(data.outcome as string))
    return `server/request ${kind} outcome ${JSON.stringify(data.outcome) ?? String(data.outcome)} is unknown`
  if (data.reason !== undefined && typeof data.reason !== 'string')
    return 'server/request "reason" must be a string'
  return kind === 'sampling' ? checkSampling(data) : checkElicitation(data)
}

function checkSampling(data: Data): string | undefined {
  const sized =
    isCountOrZero(data.messages) && isCountOrZero(data.characters) && isCountOrZero(data.maxTokens)
  if (!sized || !isId(data.model) || (data.last !== undefined && typeof data.last !== 'string'))
    return 'server/request sampling needs { messages, characters, last?, model, maxTokens }'
  if ((data.outcome === 'answered') !== (typeof data.reply === 'string'))
    return 'server/request sampling carries a "reply" iff it was answered'
  return undefined
}

function checkElicitation(data: Data): string | undefined {
  if (typeof data.message !== 'string' || !isIdList(data.fields))
    return 'server/request elicitation needs { message, fields: [<field names>] }'
  if (data.answered !== undefined && !(data.outcome === 'accept' && isIdList(data.answered)))
    return 'server/request elicitation carries "answered" (field names) only when accepted'
  return isObject(data.content) ? "server/request elicitation never records the answer's values" : undefined
}
