import { hostname, userInfo } from 'node:os'
import { decide, pendingApprovals } from '@tooltx/agent'
import { openSession } from '@tooltx/session'
import type { Output } from '../output.js'
import { demoResumeHint } from '../replay-hint.js'
import { openStore, storedSessionId } from '../session-store.js'
import { terminalSafe } from '../terminal-text.js'
import { recordedArguments } from './approvals.js'

/** Options of the `approve` command. */
export interface ApproveOptions {
  db: string
  /** The session: an id, `latest`, or the start of one id. */
  session: string
  callId: string
  /** `--deny`: record a denial instead of an approval. */
  deny: boolean
  /** Who decides; default `<user>@<host>`. */
  by?: string
  reason?: string
  /** The arguments digest the decider was shown; default the recorded one (`tooltx approvals` prints it). */
  digest?: string
}

/** `<user>@<host>` of this process, the default decider. */
function whoami(): string {
  try {
    return `${userInfo().username}@${hostname()}`
  } catch {
    return `uid ${process.getuid?.() ?? 'unknown'}@${hostname()}`
  }
}

/**
 * Decides one durable approval (K5.3): shows the call's recorded arguments, then records the
 * decision with `decide` under the session's lease (F2.5) and says how the turn continues.
 * Every refusal — no such approval, a digest that does not match, a decider not allowed, an
 * expired approval, an earlier decision, a live writer holding the session — is one message
 * and exit status 1, with nothing recorded but the expiry.
 */
export async function approveCommand(options: ApproveOptions, out: Output): Promise<void> {
  const id = await storedSessionId(options.db, options.session, 'approve')
  const store = openStore(options.db)
  try {
    const session = await openSession(store, { id })
    try {
      const events = session.events()
      const wait = pendingApprovals(events).find((pending) => pending.callId === options.callId)
      if (wait !== undefined) {
        out.line(terminalSafe(`${wait.name} (call ${wait.callId}) in ${id}`))
        out.line(terminalSafe(`    arguments: ${recordedArguments(events, wait.callId)}`))
      }
      const by = options.by ?? whoami()
      const decided = await decide(session, options.callId, {
        decision: options.deny ? 'denied' : 'allowed-once',
        by,
        ...(options.reason === undefined ? {} : { reason: options.reason }),
        digest: options.digest ?? wait?.argumentsDigest ?? '-',
      })
      const verb = decided.outcome === 'allowed-once' ? 'approved' : 'denied'
      out.line(terminalSafe(`${verb} ${decided.name} (call ${decided.callId}) in ${id}, by ${by}`))
      out.line(
        id.startsWith('demo-')
          ? `The turn continues when the session is resumed: ${demoResumeHint(id, options.db)}`
          : 'The turn continues when an agent on this session resumes it (agent.resume(), or the next worker job).',
      )
    } finally {
      await session.close()
    }
  } finally {
    await store.close()
  }
}
