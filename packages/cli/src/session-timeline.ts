import type { AnyToolDefinition } from '@tooltx/core'
import type { SessionEvent } from '@tooltx/session'
import { recordedLookup } from './display/presenters.js'
import type { DefinitionLookup } from './display/session-display.js'
import { TimelineRenderer } from './display/timeline.js'
import { createToolset, createWorkspaceToolset } from './toolset.js'

/**
 * The CLI's own tool definitions (the demo's and the general workspace tools of `run`) and the
 * Code Mode transport, for their presenters only: they are rooted at the current directory and
 * never run.
 */
export function cliDefinitions(): AnyToolDefinition[] {
  const demo = createToolset({ root: process.cwd(), mode: 'both' })
  const general = createWorkspaceToolset({ root: process.cwd() })
  return [...demo.runtime.view(demo.scope).list(), ...general.runtime.view(general.scope).list()]
}

/**
 * Every timeline line of a stored session, in order: what `tooltx replay` prints. Cards come
 * from `lookup`; by default from the CLI's presenters, for exactly the tools whose results
 * in `events` record them (a tool of another program gets generic cards, whatever its name).
 * Pass `(name) => runtime.view(scope).get(name)` to print a session of your own tools with
 * their cards. A durable ask nobody decided that expired by `now` (epoch ms, default the
 * current time) gets its expiry line after the events (K5.18). Never throws for any event list
 * the session log holds.
 */
export function renderSession(
  events: readonly SessionEvent[],
  lookup: DefinitionLookup = recordedLookup(events, cliDefinitions()),
  now: number = Date.now(),
): string[] {
  const timeline = new TimelineRenderer(lookup)
  return [...events.flatMap((event) => timeline.render(event)), ...timeline.expired(now)]
}
