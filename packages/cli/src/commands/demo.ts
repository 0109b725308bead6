import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { createAgent, scripted } from '@tooltx/agent'
import { openSession, sqliteStore } from '@tooltx/session'
import { codeModeComparison } from '../code-mode-comparison.js'
import { DEMO_SCRIPT, DEMO_TASK } from '../demo-script.js'
import { freshDemoWorkspace } from '../demo-workspace.js'
import { watchSession } from '../live-progress.js'
import type { Output } from '../output.js'
import { runtimeTour } from '../runtime-tour.js'
import { createToolset, fixedApprover } from '../toolset.js'

/** The sample workspace bundled with the CLI. */
export const SAMPLE_WORKSPACE = fileURLToPath(new URL('../../sample-workspace', import.meta.url))

/** Options of the `demo` command. */
export interface DemoOptions {
  db: string
  /** Stream without pauses (tests). */
  fast?: boolean
}

/**
 * Runs the scripted demo agent over a fresh copy of the sample workspace (next to the database,
 * replacing only a copy an earlier demo made: K4.1), showing each call live, and prints where
 * the session was saved and how to replay it. Returns the session id.
 */
export async function demoCommand(options: DemoOptions, out: Output): Promise<string> {
  const root = path.join(path.dirname(path.resolve(options.db)), 'demo-workspace')
  freshDemoWorkspace(root, SAMPLE_WORKSPACE)

  const store = sqliteStore(options.db)
  const id = `demo-${new Date().toISOString().replace(/[:.]/g, '-')}`
  const session = await openSession(store, { id })
  const { runtime, scope } = createToolset({ root, reportError: (e) => out.error(String(e)) })
  const model = scripted(DEMO_SCRIPT, { delayMs: options.fast ? 0 : 12 })
  out.line(`tooltx demo — a scripted agent working in ${root}`)
  out.line(`task: ${DEMO_TASK}`)
  out.line()
  const stop = watchSession(session, runtime, scope, out)
  try {
    const agent = createAgent({
      runtime,
      scope,
      session,
      model,
      approver: fixedApprover('allowed-once'),
      system: 'You are a careful engineering assistant. Use the tools to inspect the workspace.',
    })
    agent.send(DEMO_TASK)
    await agent.whenIdle()
  } finally {
    stop()
    await session.close()
    await store.close()
  }
  out.line()
  await runtimeTour(out, root)
  out.line()
  await codeModeComparison(out, root)
  out.line()
  out.line(`Session saved as ${id} in ${options.db}.`)
  out.line(`Replay it with: npx tooltx replay ${id}`)
  return id
}
