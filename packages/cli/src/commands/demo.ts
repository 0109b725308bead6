import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { type Agent, createAgent, scripted } from '@tooltx/agent'
import { openSession } from '@tooltx/session'
import { cliApprover } from '../approvals.js'
import { codeModeComparison } from '../code-mode-comparison.js'
import { DEMO_SCRIPT, DEMO_TASK } from '../demo-script.js'
import { freshDemoWorkspace } from '../demo-workspace.js'
import { watchSession } from '../live-progress.js'
import type { Output } from '../output.js'
import { liveLookup } from '../presenters.js'
import { replayHint } from '../replay-hint.js'
import { RunControl, STOP_NOTES, STOPPED_EXIT_STATUS } from '../run-control.js'
import { runtimeTour } from '../runtime-tour.js'
import { isPostgres, openStore } from '../session-store.js'
import { createToolset } from '../toolset.js'

/** The sample workspace bundled with the CLI. */
export const SAMPLE_WORKSPACE = fileURLToPath(new URL('../../sample-workspace', import.meta.url))

/** Options of the `demo` command. */
export interface DemoOptions {
  db: string
  /** Stream without pauses (tests). */
  fast?: boolean
  /** Approve the demo's write without asking. */
  yes?: boolean
}

/** What a finished demo reports: the session it saved and the exit status. */
export interface DemoOutcome {
  id: string
  exitStatus: number
}

/**
 * Runs the scripted demo agent over a fresh copy of the sample workspace (next to the database,
 * replacing only a copy an earlier demo made: K4.1), showing each call live, and prints where
 * the session was saved and how to replay it. The write's approval is asked of the person at a
 * terminal (unless `yes`); without a terminal the demo answers it itself and says so. Ctrl-C or
 * a closed stdout stops it as `run` does (130 or 141).
 */
export async function demoCommand(options: DemoOptions, out: Output): Promise<DemoOutcome> {
  // Beside a SQLite file; for a Postgres database, in .tooltx of the working directory.
  const near = isPostgres(options.db) ? path.resolve('.tooltx') : path.dirname(path.resolve(options.db))
  const root = path.join(near, 'demo-workspace')
  freshDemoWorkspace(root, SAMPLE_WORKSPACE)

  const store = openStore(options.db)
  const id = `demo-${new Date().toISOString().replace(/[:.]/g, '-')}`
  const session = await openSession(store, { id })
  const { runtime, scope } = createToolset({ root, reportError: (e) => out.error(String(e)) })
  const model = scripted(DEMO_SCRIPT, { delayMs: options.fast ? 0 : 12 })
  out.line(`tooltx demo — a scripted agent working in ${root}`)
  out.line(`task: ${DEMO_TASK}`)
  if (options.yes) out.line('approval: --yes, so the write is approved without asking')
  else if (out.prompt === undefined) {
    out.line(
      'approval: no terminal to ask, so the demo approves its write itself (at a terminal it asks you)',
    )
  }
  out.line()
  const stop = watchSession(session, runtime, scope, out)
  let agent: Agent | undefined
  const control = new RunControl(out, () => agent?.abort())
  try {
    agent = createAgent({
      runtime,
      scope,
      session,
      model,
      approver: cliApprover({
        out,
        lookup: liveLookup(runtime.view(scope)),
        yes: options.yes === true,
        unattended: 'allow',
        onInterrupt: () => control.interrupt(),
      }),
      system: 'You are a careful engineering assistant. Use the tools to inspect the workspace.',
    })
    agent.send(DEMO_TASK)
    await agent.whenIdle()
  } finally {
    control.dispose()
    stop()
    await session.close()
    await store.close()
  }
  if (control.reason === undefined) {
    out.line()
    await runtimeTour(out, root)
    out.line()
    await codeModeComparison(out, root)
  }
  out.line()
  out.line(`Session saved as ${id} in ${options.db}.`)
  out.line(`Replay it with: ${replayHint(id, options.db)}`)
  if (control.reason === undefined) return { id, exitStatus: 0 }
  out.error(`tooltx: ${STOP_NOTES[control.reason]}; the turn was recorded as aborted`)
  return { id, exitStatus: STOPPED_EXIT_STATUS[control.reason] }
}
