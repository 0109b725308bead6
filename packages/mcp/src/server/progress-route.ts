/** Progress over MCP (Y1.8): a served call's `run.progress` updates as `notifications/progress`. */
import type { JsonValue } from '@tooltx/core'

/** The params of one progress notification, without the token. */
export interface ProgressParams {
  progress: number
  total?: number
  message?: string
}

/**
 * Maps one tooltx progress update to MCP progress (Y1.8). An object with a finite numeric
 * `progress` greater than the previous one (the first update: at least 0, so a first `0` goes
 * out as 0) keeps it and a finite `total` and a string `message`; any other update counts one
 * step past the previous progress (the first: 1), with a string update as the message and any
 * other JSON as its text. Progress therefore always increases, as MCP requires.
 * `previous` is undefined before the first update.
 */
export function progressParams(update: JsonValue, previous: number | undefined): ProgressParams {
  if (typeof update === 'object' && update !== null && !Array.isArray(update)) {
    const { progress, total, message } = update
    if (
      typeof progress === 'number' &&
      Number.isFinite(progress) &&
      (previous === undefined ? progress >= 0 : progress > previous)
    ) {
      const params: ProgressParams = { progress }
      if (typeof total === 'number' && Number.isFinite(total)) params.total = total
      if (typeof message === 'string') params.message = message
      return params
    }
  }
  return {
    progress: (previous ?? 0) + 1,
    message: typeof update === 'string' ? update : JSON.stringify(update),
  }
}

/** Progress sinks of the calls in flight, by root call id (a Code Mode sub-call reports to its root). */
export class ProgressRoutes {
  readonly #sinks = new Map<string, (update: JsonValue) => void>()

  /** Routes updates of the call `callId` (and its sub-calls) to `send` until the returned disposer runs. */
  open(callId: string, send: (params: ProgressParams) => void): () => void {
    let previous: number | undefined
    this.#sinks.set(callId, (update) => {
      const params = progressParams(update, previous)
      previous = params.progress
      send(params)
    })
    return () => this.#sinks.delete(callId)
  }

  /** Delivers one update of a call whose root is `rootCallId`; a call nobody asked progress for is ignored. */
  deliver(rootCallId: string, update: JsonValue): void {
    this.#sinks.get(rootCallId)?.(update)
  }
}
