import type { PreparedStep, SessionEvent } from './events.js'

/**
 * What `prepareStep` changed for the step of the latest turn's latest `assistant/message`, as
 * that message records it (T4.4); `undefined` when it records nothing or the latest turn has no
 * reply yet. A resumed (F2.7) or recovered (F1.4) step is rebuilt from it (T4.5).
 */
export function stepPreparation(events: readonly SessionEvent[]): PreparedStep | undefined {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!
    if (event.type === 'assistant/message') return event.data.prepared
    if (event.type === 'turn/start') return undefined
  }
  return undefined
}
