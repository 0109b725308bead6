import { existsSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { type Agent, createAgent, type PendingApproval, type TurnOutcome } from '@tooltx/agent'
import { openSession, type Session, type SessionStore, suspendedTurn } from '@tooltx/session'
import { cliApprover } from '../approvals.js'
import { codeModeComparison } from '../code-mode-comparison.js'
import { DEMO_SCRIPT, DEMO_TASK, demoModel } from '../demo-script.js'
import { freshDemoWorkspace } from '../demo-workspace.js'
import { watchSession } from '../display/live-progress.js'
import type { Output } from '../display/output.js'
import { UsageError } from '../display/output.js'
import { liveLookup } from '../display/presenters.js'
import { approveHint, demoResumeHint, replayHint, viewHint } from '../display/replay-hint.js'
import { suspendedNote } from '../display/suspended-note.js'
import { RunControl, STOP_NOTES, STOPPED_EXIT_STATUS } from '../run-control.js'
import { runtimeTour } from '../runtime-tour.js'
import { isPostgres, openStore, storedSessionId } from '../session-store.js'
import { createToolset } from '../toolset.js'
import { type Command, defineCommand } from './command.js'
import { type CommandUsage, DB_HELP, dbPath, defined, noPositionals, usageError } from './flags.js'

/** `tooltx demo`: its help, printed by `--help`; a usage error points to it. */
const USAGE: CommandUsage = {
  name: 'demo',
  help: `Usage: tooltx demo [options]

Runs a scripted agent over a copy of the bundled sample workspace with real tools (list,
read, grep, run checks, write a note): a parallel batch, a guard denial, an approval and a
timeout, shown live. At a terminal it asks you to approve the write; without one it
approves it itself and says so. Prints where the session was saved and how to replay it.

With --durable the write's approval is recorded in the session instead: the turn waits there,
this process exits, \`tooltx approve\` decides it from another command, and
\`tooltx demo --resume <id>\` finishes the turn.

Options:
${DB_HELP}
  --fast           stream the scripted replies without pauses
  --yes            approve the write without asking
  --durable        let the write's approval wait in the session for \`tooltx approve\`
  --resume ID      finish a durable demo session once its approval is decided
  -h, --help       show this help`,
}

/** The sample workspace bundled with the CLI. */
export const SAMPLE_WORKSPACE = fileURLToPath(new URL('../../sample-workspace', import.meta.url))

/** Options of the `demo` command. */
export interface DemoOptions {
  db: string
  /** Stream without pauses (tests). */
  fast?: boolean
  /** Approve the demo's write without asking. */
  yes?: boolean
  /**
   * Ask for the write's approval durably: the turn waits in the session for `tooltx approve`
   * and the command exits (K5.1).
   */
  durable?: boolean
  /** Continue the durable demo session with this id (or `latest`, or an id prefix) (K5.4). */
  resume?: string
}

/** What a finished demo reports: the session it saved and the exit status. */
export interface DemoOutcome {
  id: string
  exitStatus: number
}

/** Where the demo's workspace copy lives: beside a SQLite file, or in .tooltx for PostgreSQL. */
function demoRoot(db: string): string {
  const near = isPostgres(db) ? path.resolve('.tooltx') : path.dirname(path.resolve(db))
  return path.join(near, 'demo-workspace')
}

/**
 * Runs the scripted demo agent over a fresh copy of the sample workspace (next to the database,
 * replacing only a copy an earlier demo made: K4.1), showing each call live, and prints where
 * the session was saved and how to replay it. The write's approval is asked of the person at a
 * terminal (unless `yes`); without a terminal the demo answers it itself and says so. With
 * `durable` the approval is recorded in the session instead and the demo stops there, saying
 * how to decide it and resume (K5.1). Ctrl-C, a closed stdout, SIGTERM or SIGHUP stops it as
 * `run` does (130, 141, 143 or 129).
 */
export async function demoCommand(options: DemoOptions, out: Output): Promise<DemoOutcome> {
  if (options.resume !== undefined) return resumeDemo({ ...options, resume: options.resume }, out)
  const root = demoRoot(options.db)
  freshDemoWorkspace(root, SAMPLE_WORKSPACE)
  const store = openStore(options.db, out)
  const id = `demo-${new Date().toISOString().replace(/[:.]/g, '-')}`
  out.line(`tooltx demo — a scripted agent working in ${root}`)
  out.line(`task: ${DEMO_TASK}`)
  if (options.durable) out.line('approval: durable, so the write waits in the session for `tooltx approve`')
  else if (options.yes) out.line('approval: --yes, so the write is approved without asking')
  else if (out.prompt === undefined) {
    out.line(
      'approval: no terminal to ask, so the demo approves its write itself (at a terminal it asks you)',
    )
  }
  out.line()
  const session = await openSession(store, { id })
  const run = await runDemoAgent({ options, out, store, session, root, script: DEMO_SCRIPT }, (agent) => {
    agent.send(DEMO_TASK)
    return agent.whenIdle()
  })
  if (run.outcome?.reason === 'suspended')
    return suspendedDemo(id, options.db, run.outcome.pending ?? [], out)
  if (run.stopped === undefined) {
    out.line()
    await runtimeTour(out, root)
    out.line()
    await codeModeComparison(out, root)
  }
  return savedDemo(id, options.db, run.stopped, out)
}

/** What `runDemoAgent` needs: where the demo runs and the replies the model gives. */
interface DemoRun {
  options: DemoOptions
  out: Output
  store: SessionStore
  session: Session
  root: string
  script: typeof DEMO_SCRIPT
}

/**
 * Builds the demo's agent on `session` (durable approvals, or the CLI's approver), shows the
 * session live, runs `drive`, then closes the session and the store. Resolves with the turn's
 * outcome and why the run was stopped from outside, if it was.
 */
async function runDemoAgent(
  run: DemoRun,
  drive: (agent: Agent) => Promise<TurnOutcome | undefined>,
): Promise<{ outcome: TurnOutcome | undefined; stopped: keyof typeof STOP_NOTES | undefined }> {
  const { options, out, session } = run
  const { runtime, scope } = createToolset({ root: run.root, reportError: (e) => out.error(String(e)) })
  const stop = watchSession(session, runtime, scope, out, session.events())
  let agent: Agent | undefined
  const control = new RunControl(out, () => agent?.abort())
  try {
    const approvals = options.durable || options.resume !== undefined
    agent = createAgent({
      runtime,
      scope,
      session,
      model: demoModel(run.script, { delayMs: options.fast ? 0 : 12 }),
      ...(approvals
        ? { approvals: 'durable' as const }
        : {
            approver: cliApprover({
              out,
              lookup: liveLookup(runtime.view(scope)),
              yes: options.yes === true,
              unattended: 'allow',
              onInterrupt: () => control.interrupt(),
            }),
          }),
      system: 'You are a careful engineering assistant. Use the tools to inspect the workspace.',
    })
    return { outcome: await drive(agent), stopped: control.reason }
  } finally {
    control.dispose()
    stop()
    await session.close()
    await run.store.close()
  }
}

/** Says where the session was saved and how to look at it; the exit status of the demo. */
function savedDemo(
  id: string,
  db: string,
  stopped: keyof typeof STOP_NOTES | undefined,
  out: Output,
): DemoOutcome {
  out.line()
  out.line(`Session saved as ${id} in ${db}.`)
  out.line(`Replay it with: ${replayHint(id, db)}`)
  out.line(`View it in a browser with: ${viewHint(id, db)}`)
  if (stopped === undefined) return { id, exitStatus: 0 }
  out.error(`tooltx: ${STOP_NOTES[stopped]}; the turn was recorded as aborted`)
  return { id, exitStatus: STOPPED_EXIT_STATUS[stopped] }
}

/** Says what the suspended demo waits for and the commands that decide and resume it (K5.1). */
function suspendedDemo(
  id: string,
  db: string,
  pending: readonly PendingApproval[],
  out: Output,
): DemoOutcome {
  suspendedNote(out, { id, db }, pending, demoResumeHint(id, db))
  return { id, exitStatus: 0 }
}

/**
 * Continues a durable demo session (K5.4): reopens it, answers the rest of the script from the
 * reply the turn stopped at, and resumes the turn with `agent.resume()`. Fails with a clear
 * message when the session is not a demo waiting on an approval, or nobody decided it yet.
 */
async function resumeDemo(options: DemoOptions & { resume: string }, out: Output): Promise<DemoOutcome> {
  const id = await storedSessionId(options.db, options.resume, 'demo --resume')
  const root = demoRoot(options.db)
  if (!id.startsWith('demo-')) {
    throw new UsageError(
      `session "${id}" was not made by \`tooltx demo\`, so demo --resume cannot continue it`,
    )
  }
  if (!existsSync(root)) {
    throw new UsageError(
      `the demo workspace ${root} is gone, so session "${id}" cannot continue; start again with \`tooltx demo --durable\``,
    )
  }
  const store = openStore(options.db, out)
  let session: Session
  try {
    session = await openSession(store, { id })
  } catch (error) {
    await store.close()
    throw error
  }
  const events = session.events()
  if (suspendedTurn(events) === undefined) {
    await session.close()
    await store.close()
    throw new UsageError(
      `session "${id}" has no turn waiting for an approval; start one with \`tooltx demo --durable\``,
    )
  }
  // The scripted model answers the requests after the replies the log already holds.
  const replies = events.filter((event) => event.type === 'assistant/message').length
  out.line(`tooltx demo — resuming ${id} in ${root}`)
  out.line()
  const run = await runDemoAgent(
    { options, out, store, session, root, script: DEMO_SCRIPT.slice(replies) },
    (agent) => agent.resume(),
  )
  if (run.outcome?.reason === 'suspended') {
    const waiting = (run.outcome.pending ?? []).map((p) => `${p.name} (call ${p.callId})`).join(', ')
    out.error(
      `tooltx: the turn still waits for a decision on ${waiting}; decide it with ${approveHint(id, run.outcome.pending?.[0]?.callId ?? '<call-id>', options.db)} and resume again`,
    )
    return { id, exitStatus: 1 }
  }
  return savedDemo(id, options.db, run.stopped, out)
}

/** `tooltx demo`: checks that `--resume`, `--durable` and `--yes` go together, then runs the demo. */
export const command: Command = defineCommand(
  USAGE,
  { strings: ['db', 'resume'], booleans: ['fast', 'yes', 'durable'] },
  async ({ values, positionals }, out) => {
    noPositionals(USAGE, positionals)
    if (values.resume !== undefined && (values.durable === true || values.yes === true))
      throw usageError(USAGE, '--resume continues a durable demo: it takes no --durable or --yes')
    if (values.durable === true && values.yes === true)
      throw usageError(USAGE, '--durable and --yes contradict each other: pick one')
    const demo = await demoCommand(
      {
        db: dbPath(values.db),
        fast: values.fast === true,
        yes: values.yes === true,
        durable: values.durable === true,
        ...defined({ resume: values.resume }),
      },
      out,
    )
    return demo.exitStatus
  },
)
