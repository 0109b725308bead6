import type { JsonValue } from '../foundation/lossless-json.js'

/** A model-facing text block (O1.2). */
export interface TextBlock {
  type: 'text'
  text: string
}

/** A model-facing image block with base64 `data` (O1.2). */
export interface ImageBlock {
  type: 'image'
  mediaType: string
  data: string
}

/** Any other block type passes through untouched (O1.2). */
export interface OtherBlock {
  type: string
  [key: string]: JsonValue
}

/** One block of model-facing content: a plain object with a non-empty string `type`. */
export type ContentBlock = TextBlock | ImageBlock | OtherBlock

/** Where a deferred context came from; kept unchanged up to the session log (O1.3). */
export type ContextSource = { kind: 'tool'; name: string; callId: string } | { [key: string]: JsonValue }

/** A user message added to the conversation at the next step boundary (O1.3, P8.4). */
export interface UserMessage {
  role: 'user'
  content: ContentBlock[]
  source?: ContextSource
}

/** An additional context on a result: a user message that always carries its `source`. */
export interface AdditionalContext extends UserMessage {
  source: ContextSource
}
