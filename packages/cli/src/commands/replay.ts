import type { Output } from '../output.js'
import { UsageError } from '../output.js'
import { openSessions, resolveSession } from '../session-store.js'
import { renderSession } from '../session-timeline.js'

/**
 * Prints the timeline of a stored session from the log alone: turns, steps, every call with
 * its card, results and contexts (`renderSession`). `id` may be `latest` or the start of one
 * id. The database is read-only here and the tools are never run.
 */
export async function replayCommand(options: { db: string; id: string }, out: Output): Promise<void> {
  const reader = openSessions(options.db)
  if (reader === undefined) {
    throw new UsageError(
      `no session "${options.id}": there is no session database at ${options.db}; run \`tooltx demo\` first, or pass --db`,
    )
  }
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
