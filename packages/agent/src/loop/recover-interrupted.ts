import { stepPreparation } from '@tooltx/session'
import { Journal } from '../base/journal.js'
import { restoreRequest } from '../context/prepare-step.js'
import { recoverSession } from '../recovery/recover-calls.js'
import { recoveryInput } from './call-input.js'
import type { LoopContext } from './loop-context.js'

/**
 * Recovers a session a dead process left in turn `turn` (F1.4, F1.6): re-runs what may run
 * again, then repairs the rest (`recoverSession`), in the interrupted step's scope as
 * `prepareStep` prepared it (T4.5), the calls' inputs built as the loop builds them.
 */
export async function recoverInterrupted(ctx: LoopContext, signal: AbortSignal, turn: number): Promise<void> {
  const { runtime, scope, session, system } = ctx.options
  const rebuilt = restoreRequest(stepPreparation(session.events()), { runtime, scope, system })
  try {
    const tools = runtime.view(rebuilt.scope).surface().tools
    const journal = new Journal(session)
    await recoverSession({
      runtime,
      scope: rebuilt.scope,
      session,
      journal,
      turn,
      input: recoveryInput(ctx, { journal, signal, scope: rebuilt.scope, turn, tools }),
      hides: rebuilt.hides,
    })
  } finally {
    rebuilt.dispose()
  }
}
