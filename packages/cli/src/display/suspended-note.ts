import type { PendingApproval } from '@tooltx/agent'
import type { Output } from './output.js'
import { approveHint } from './replay-hint.js'
import { terminalSafe } from './terminal-text.js'

/**
 * Says what a suspended turn waits for and the commands that go on with it (K5.1, K5.10): each
 * waiting call and its expiry, where the session was saved, `tooltx approvals` to see the change,
 * the `tooltx approve` command of the first waiting call, `resume`, the command (or the words)
 * that continue the turn once decided, and what finishing it does once the ask expired (K5.15).
 */
export function suspendedNote(
  out: Output,
  session: { id: string; db: string },
  pending: readonly PendingApproval[],
  resume: string,
): void {
  const { id, db } = session
  out.line()
  for (const wait of pending) {
    out.line(
      terminalSafe(
        `The turn waits for a durable approval of ${wait.name} (call ${wait.callId}) until ${wait.expiresAt}.`,
      ),
    )
  }
  out.line(`Session saved as ${id} in ${db}; this process can exit, the approval waits in the log.`)
  const first = pending[0]
  if (first !== undefined)
    out.line(`Decide it from another command: ${approveHint(id, first.callId, db)}   (or add --deny)`)
  out.line(`Then finish the turn with: ${resume}`)
  out.line('If nobody decides before it expires, finishing the turn denies the call and goes on without it.')
}
