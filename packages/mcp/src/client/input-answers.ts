/**
 * How `mcpTools` answers the input requests of a 2026-07-28 task (Y6.27, Y6.29, Y6.30): each as
 * it answers the same request sent on its own, since the extension asks the client to treat it
 * so. A request it cannot answer is refused explicitly, with the JSON-RPC error it would send
 * for that request on its own, in the answer's place.
 */
import type { CreateMessageRequestParams, ElicitRequestParams } from '@modelcontextprotocol/client'
import type { JsonObject } from '@tooltx/core'
import { errorMessage } from '@tooltx/core/internal'
import {
  answerElicitation,
  answerSampling,
  type ClientCapabilityOptions,
  rootList,
  type ServerSide,
} from './client-capabilities.js'

/** Answers one input request `{ method, params }` of a task. */
export type InputAnswerer = (request: unknown, signal: AbortSignal) => Promise<JsonObject>

/** JSON-RPC's codes of a method nobody handles and of a handler's failure. */
const METHOD_NOT_FOUND = -32601
const INTERNAL_ERROR = -32603

/** The refusal of an input request: the JSON-RPC error object of the same request sent alone (Y6.30). */
const refusal = (code: number, message: string): JsonObject => ({ error: { code, message } })

/** True iff `params` is an elicitation the client can put to `onElicit`. */
function isElicitation(params: unknown): params is ElicitRequestParams {
  const p = params as { mode?: unknown; message?: unknown; requestedSchema?: unknown } | null
  if (p === null || typeof p !== 'object' || typeof p.message !== 'string') return false
  return p.mode === 'url' || (p.requestedSchema !== null && typeof p.requestedSchema === 'object')
}

/** True iff `params` is a sampling request: `messages` a list and `maxTokens` a positive integer. */
function isSampling(params: unknown): params is CreateMessageRequestParams {
  const p = params as { messages?: unknown; maxTokens?: unknown } | null
  return (
    p !== null &&
    typeof p === 'object' &&
    Array.isArray(p.messages) &&
    Number.isSafeInteger(p.maxTokens) &&
    (p.maxTokens as number) > 0
  )
}

/**
 * The answerer of the server `side` names, with the handlers of `options` (Y6.29, Y6.30): an
 * elicitation goes to `onElicit` as Y2.24 says (without it, `cancel`); a sampling request to
 * `onSample` as Y2.28 says, its throw refused with `-32603` and its message; `roots/list` is
 * answered with `roots`. A method without its handler, or params that are not that method's,
 * are refused with `-32601` and `-32602` saying what the client cannot answer.
 */
export function inputAnswerer(side: ServerSide, options: ClientCapabilityOptions): InputAnswerer {
  const { onElicit, onSample, roots } = options
  return async (request, signal) => {
    const { method, params } = (request ?? {}) as { method?: unknown; params?: unknown }
    const name = typeof method === 'string' ? method : JSON.stringify(method)
    const cannot = (why: string) => refusal(METHOD_NOT_FOUND, `this client cannot answer ${name}: ${why}`)
    if (method === 'elicitation/create') {
      if (!isElicitation(params)) return refusal(-32602, 'the elicitation request is malformed')
      if (onElicit === undefined) return { action: 'cancel' }
      return (await answerElicitation(side, onElicit, params, signal)) as JsonObject
    }
    if (method === 'sampling/createMessage') {
      if (onSample === undefined) return cannot('it has no sampling handler (onSample)')
      if (!isSampling(params)) return refusal(-32602, 'the sampling request is malformed')
      try {
        return (await answerSampling(side, onSample, params, signal)) as unknown as JsonObject
      } catch (error) {
        return refusal(INTERNAL_ERROR, errorMessage(error))
      }
    }
    if (method === 'roots/list') {
      if (roots === undefined || roots.length === 0) return cannot('it announces no roots')
      return rootList(roots) as unknown as JsonObject
    }
    return cannot('it knows no such request')
  }
}
