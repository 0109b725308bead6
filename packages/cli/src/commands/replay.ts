import { sqliteStore } from '@tooltx/session'
import { type Output, UsageError } from '../output.js'
import { TimelineRenderer } from '../timeline.js'
import { createToolset } from '../toolset.js'

/**
 * Prints the timeline of a stored session from the log alone: turns, steps, every call with
 * its card, results and contexts. Cards use the CLI's own tool definitions, looked up through
 * a scope view (U1.9); the tools are never run.
 */
export async function replayCommand(options: { db: string; id: string }, out: Output): Promise<void> {
  const store = sqliteStore(options.db)
  try {
    const known = await store.listSessions()
    if (!known.some((info) => info.id === options.id)) {
      const hint =
        known.length === 0
          ? 'there are no sessions yet; run `tooltx demo` first'
          : 'run `tooltx sessions` to list them'
      throw new UsageError(`no session "${options.id}" in ${options.db}; ${hint}`)
    }
    const events = await store.load(options.id)
    // The CLI's own definitions, read only for their presenters; rooted at the cwd and never run.
    const { runtime, scope } = createToolset({ root: process.cwd() })
    const view = runtime.view(scope)
    const timeline = new TimelineRenderer((name) => view.get(name))
    out.line(`session ${options.id} (${events.length} events)`)
    out.line()
    for (const event of events) for (const line of timeline.render(event)) out.line(line)
  } finally {
    await store.close()
  }
}
