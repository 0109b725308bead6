import type { StopReason } from '@tooltx/session'
import type { ModelUsage, ReplyMessageEvent } from './model.js'
import { cutReply } from './model-error.js'
import type { ReplyBlock } from './reasoning.js'
import { replyStop } from './stop-reason.js'

/** What `finalReply` needs: the reply as collected, and the adapter's stop words. */
export interface FinalReplyOptions {
  /** The adapter's name, as its errors name it. */
  adapter: string
  /** The wire field that carried the stop reason, such as `finish_reason`. */
  field: string
  /** The provider's stop reason; `undefined` when it sent none. */
  raw: string | undefined
  /** The provider's stop reasons in tooltx's words (T2.1). */
  stops: Readonly<Record<string, StopReason>>
  /** The stop reasons that mean the provider cut the reply, with what to do about it (L12.2). */
  cutHints: Readonly<Record<string, string>>
  content: ReplyBlock[]
  usage: ModelUsage
  /** Whether the reply holds tool calls. */
  hasToolCalls: boolean
}

/**
 * The final `message` event of a complete reply, its stop reason in tooltx's words (T2.1).
 * Throws the `truncated` `ModelError` of `cutReply`, carrying the reply, when the stop reason
 * says the provider cut a reply that holds tool calls (L12.2).
 */
export function finalReply(options: FinalReplyOptions): ReplyMessageEvent {
  const { adapter, field, raw, cutHints, content, usage } = options
  const stop = replyStop(raw, options.stops)
  if (options.hasToolCalls && raw !== undefined && Object.hasOwn(cutHints, raw)) {
    throw cutReply(adapter, `${field} "${raw}"`, cutHints[raw]!, { content, stop, usage })
  }
  return { type: 'message', content, usage, stop }
}
