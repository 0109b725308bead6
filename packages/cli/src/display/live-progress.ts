import type { RuntimeScope, ToolRuntime } from '@tooltx/core'
import type { Session, SessionEvent } from '@tooltx/session'
import type { ModelProgress } from './model-progress.js'
import type { Output } from './output.js'
import { liveLookup } from './presenters.js'
import { terminalSafe } from './terminal-text.js'
import { TimelineRenderer } from './timeline.js'

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏']
/** How the timeline line of an assistant's text begins, as `ModelProgress` streams it. */
const STREAMED = '    assistant: '

/**
 * Shows a session live: every durable event as timeline lines (the same lines `replay`
 * prints: cards only from presenters the log records, `liveLookup`), and on a terminal a
 * spinner line naming the calls still running, paused while a question is asked. `earlier`
 * (the events already in the log of a resumed session) is read without printing, so later
 * cards know their calls. With `model` (K2.12), the spinner line says how long the model has
 * been waiting while no call runs, and a reply whose text was shown as it streamed is not
 * shown again. Returns a function that stops watching.
 */
export function watchSession(
  session: Session,
  runtime: ToolRuntime,
  scope: RuntimeScope,
  out: Output,
  earlier: readonly SessionEvent[] = [],
  model?: ModelProgress,
): () => void {
  const timeline = new TimelineRenderer(liveLookup(runtime.view(scope)))
  for (const event of earlier) timeline.render(event)
  const running = new Map<string, string>()
  let frame = 0
  const paint = () => {
    if (running.size === 0) {
      const waiting = model?.waitingText()
      return out.status(waiting === undefined ? '' : `${FRAMES[frame++ % FRAMES.length]} ${waiting}`)
    }
    out.status(`${FRAMES[frame++ % FRAMES.length]} running: ${[...running.values()].join(', ')}`)
  }
  const off = session.on((event) => {
    const lines = timeline.render(event)
    // A reply shown as it streamed: its message lines (the last, from STREAMED on) are not shown again.
    const shown = event.type === 'assistant/message' && model?.takeStreamed() === true
    const streamedAt = shown ? lines.findIndex((line) => line.startsWith(STREAMED)) : -1
    for (const line of streamedAt === -1 ? lines : lines.slice(0, streamedAt)) out.line(line)
    if (event.type === 'tool/call') running.set(event.data.callId, terminalSafe(event.data.name))
    if (event.type === 'tool/result') running.delete(event.data.callId)
    paint()
  })
  const timer = out.interactive ? setInterval(paint, 80) : undefined
  return () => {
    off()
    if (timer) clearInterval(timer)
    out.status('')
  }
}
