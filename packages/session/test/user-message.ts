/** The `user/message` event tests and benchmarks append when only the text matters. */
import type { ContextSource, UserMessage } from '@tooltx/core'
import type { NewSessionEvent } from '@tooltx/session'

/** A `user/message` event of turn 1, step 1 whose message is `text`, with `source` when one is given. */
export function userMessageEvent(text: string, source?: ContextSource): NewSessionEvent {
  const message: UserMessage = { role: 'user', content: [{ type: 'text', text }] }
  return {
    type: 'user/message',
    data: { turn: 1, step: 1, message: source === undefined ? message : { ...message, source } },
  }
}
