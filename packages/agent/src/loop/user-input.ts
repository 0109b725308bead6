import { type JsonValue, snapshotJson, type UserMessage } from '@tooltx/core'
import { definitionError, errorMessage } from '@tooltx/core/internal'

/**
 * The frozen copy of a message handed to `agent.inject` (L3.9), taken at the call, so a caller
 * changing the object afterwards changes nothing the loop logs. Throws `INVALID_DEFINITION`
 * at once, naming what is wrong, for data that is not lossless JSON, a throwing getter, or a
 * value that is not `{ role: 'user', content: [...] }`; nothing is queued then.
 */
export function snapshotUserMessage(message: unknown): UserMessage {
  let snap: ReturnType<typeof snapshotJson>
  try {
    snap = snapshotJson(message, { freeze: true, root: 'message' })
  } catch (error) {
    throw definitionError(`agent.inject: reading the message failed: ${errorMessage(error)}`)
  }
  if (!snap.ok) {
    throw definitionError(`agent.inject: the message is not lossless JSON: ${snap.reason}; pass plain data`)
  }
  const copy: JsonValue = snap.value
  if (
    copy === null ||
    typeof copy !== 'object' ||
    Array.isArray(copy) ||
    copy.role !== 'user' ||
    !Array.isArray(copy.content)
  ) {
    throw definitionError('agent.inject takes a user message { role: "user", content: [...] }')
  }
  return copy as unknown as UserMessage
}

/** The user message `agent.send(text)` queues; a `text` that is not a string throws `INVALID_DEFINITION`. */
export function textMessage(text: unknown): UserMessage {
  if (typeof text !== 'string') throw definitionError(`agent.send takes a string, got ${typeof text}`)
  return Object.freeze({
    role: 'user',
    content: Object.freeze([Object.freeze({ type: 'text', text })]),
  }) as UserMessage
}
