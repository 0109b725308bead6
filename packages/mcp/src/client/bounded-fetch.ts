/**
 * The bound on one message from a server over Streamable HTTP (Y2.18), the same bound stdio's
 * `maxMessageBytes` puts on one line: a response body is read through a counter, so a hostile
 * server's 200 MB answer stops at the bound instead of filling the heap.
 */
import { MessageTooLargeError } from './message-bound.js'

const LF = 0x0a
const CR = 0x0d

/**
 * Counts the bytes of one message at a time: of each event of a `text/event-stream` body (an
 * event ends at an empty line; a stream ending its lines with a lone `\r` counts as one
 * event), else of the whole body. Errors the stream with
 * {@link MessageTooLargeError} once a message passes `maxBytes`, after telling `onTooLarge`.
 */
function counter(
  maxBytes: number,
  events: boolean,
  onTooLarge: (error: MessageTooLargeError) => void,
): TransformStream<Uint8Array, Uint8Array> {
  let message = 0
  // The length of the current line so far, and its last byte, for spotting an empty line.
  let line = 0
  let last = -1
  return new TransformStream({
    transform(chunk, controller) {
      if (events) {
        for (let at = 0; at < chunk.length; ) {
          const lf = chunk.indexOf(LF, at)
          const end = lf === -1 ? chunk.length : lf
          if (end > at) last = chunk[end - 1]!
          line += end - at
          message += end - at
          if (lf === -1) break
          // An empty line (`\n` or `\r\n`) ends the event.
          if (line === 0 || (line === 1 && last === CR)) message = 0
          line = 0
          at = lf + 1
        }
      } else message += chunk.length
      if (message > maxBytes) {
        const error = new MessageTooLargeError(maxBytes)
        onTooLarge(error)
        controller.error(error)
        return
      }
      controller.enqueue(chunk)
    },
  })
}

/**
 * `fetch` whose response bodies carry no message larger than `maxBytes` (Y2.18): on a larger
 * one the body errors with {@link MessageTooLargeError}, which `onTooLarge` receives first.
 */
export function boundedFetch(
  maxBytes: number,
  onTooLarge: (error: MessageTooLargeError) => void,
): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init)
    if (response.body === null) return response
    const type = response.headers.get('content-type') ?? ''
    const events = type.toLowerCase().startsWith('text/event-stream')
    return new Response(response.body.pipeThrough(counter(maxBytes, events, onTooLarge)), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    })
  }
}
