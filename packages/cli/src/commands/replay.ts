import type { Output } from '../output.js'
import { existingSessions, resolveSession } from '../session-store.js'
import { renderSession } from '../session-timeline.js'

/**
 * Prints the timeline of a stored session from the log alone: turns, steps, every call with
 * its card, results and contexts (`renderSession`). `id` may be `latest` or the start of one
 * id. The database is read-only here and the tools are never run.
 */
export async function replayCommand(options: { db: string; id: string }, out: Output): Promise<void> {
  const reader = existingSessions(options.db, `no session "${options.id}"`)
  try {
    const id = resolveSession(options.id, await reader.listSessions(), options.db)
    const events = (await reader.read(id)) ?? []
    out.line(`session ${id} (${events.length} events)`)
    out.line()
    for (const line of renderSession(events)) out.line(line)
  } finally {
    await reader.close()
  }
}
