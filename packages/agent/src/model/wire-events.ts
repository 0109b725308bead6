import { type EventSourceMessage, EventSourceParserStream } from 'eventsource-parser/stream'
import type { ModelStreamEvent } from './model.js'
import { ModelAbortError, ModelError, rootCauseMessage } from './model-error.js'
import type { WireEndpoint } from './wire-endpoint.js'
import { postWithRetries } from './wire-request.js'

export type { EventSourceMessage }

/**
 * The model stream events of one streamed request: posts `body` as JSON to the endpoint
 * (`postWithRetries`), parses the answer as server-sent events, hands each to `read` and yields
 * what `read` yields. Anything thrown while posting or reading (by the transport or by `read`)
 * becomes a `ModelAbortError` when `signal` has aborted, else stays the `ModelError` it is, else
 * becomes a `stream` `ModelError`; a signal aborted before the call sends nothing, and options the
 * endpoint found wrong fail with a `setup` `ModelError`. Leaving the iteration early cancels the
 * HTTP request.
 *
 * The request gets a signal of its own, linked to `signal` and unlinked when it ends, so a turn
 * of thousands of requests leaves no listener on the turn's signal (T3.8).
 */
export async function* wireEvents(
  endpoint: WireEndpoint,
  body: unknown,
  signal: AbortSignal,
  read: (message: EventSourceMessage) => Iterable<ModelStreamEvent>,
): AsyncGenerator<ModelStreamEvent, void, undefined> {
  const { adapter, factory, problem } = endpoint
  if (signal.aborted) throw new ModelAbortError(adapter, signal.reason)
  if (problem !== undefined) {
    throw new ModelError(adapter, 'setup', `${problem}. Check the options of ${factory}.`)
  }
  const request = new AbortController()
  const forward = (): void => request.abort(signal.reason)
  signal.addEventListener('abort', forward, { once: true })
  try {
    const answer = await postWithRetries(endpoint, JSON.stringify(body), request.signal)
    if (answer.body === null) return
    const messages = answer.body
      .pipeThrough(new TextDecoderStream())
      .pipeThrough(new EventSourceParserStream())
    for await (const message of messages) yield* read(message)
  } catch (error) {
    throw wireFailure(adapter, error, signal)
  } finally {
    signal.removeEventListener('abort', forward)
    // Ends the HTTP request whatever stopped the reading: an early return, an error, the end.
    request.abort()
  }
  // An abort that lands after the last event still ends the reply as aborted.
  if (signal.aborted) throw new ModelAbortError(adapter, signal.reason)
}

function wireFailure(adapter: string, error: unknown, signal: AbortSignal): Error {
  if (signal.aborted) return new ModelAbortError(adapter, signal.reason)
  if (error instanceof ModelError) return error
  return new ModelError(adapter, 'stream', `reading the stream failed: ${rootCauseMessage(error)}`, {
    cause: error,
  })
}

/**
 * The JSON value of a server-sent event's data; a `stream` `ModelError` naming the event when it
 * is not JSON (the server breaks the wire).
 */
export function eventData(adapter: string, message: EventSourceMessage): unknown {
  try {
    return JSON.parse(message.data)
  } catch (error) {
    const what = message.event === undefined ? 'an event' : `a "${message.event}" event`
    throw new ModelError(
      adapter,
      'stream',
      `the server sent ${what} whose data is not JSON: ${rootCauseMessage(error)}`,
      {
        cause: error,
      },
    )
  }
}

/** The `ModelError` for an error the server reported mid-stream, in its own words. */
export function reportedMidStream(adapter: string, detail: string): ModelError {
  return new ModelError(adapter, 'stream', `the server reported an error mid-stream: ${detail}`)
}
