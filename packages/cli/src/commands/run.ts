import { createInterface } from 'node:readline/promises'
import { anthropic, createAgent, DEFAULT_MODELS, type ModelAdapter, openaiCompatible } from '@tooltx/agent'
import type { Approver, Mode } from '@tooltx/core'
import { quickjsRuntime } from '@tooltx/sandbox'
import { openSession, sqliteStore } from '@tooltx/session'
import { watchSession } from '../live-progress.js'
import { type Output, UsageError } from '../output.js'
import { createToolset, fixedApprover } from '../toolset.js'

/** Options of the `run` command, from flags and the environment. */
export interface RunOptions {
  task: string
  db: string
  provider?: string
  model?: string
  baseUrl?: string
  mode: Mode
  workspace: string
  /** Approve every write without asking. */
  yes: boolean
  env: NodeJS.ProcessEnv
}

/** Chooses the provider and builds its adapter; says exactly what to set when a key is missing. */
export function chooseModel(options: RunOptions): ModelAdapter {
  const { env } = options
  const provider =
    options.provider ?? (env.OPENAI_API_KEY ? 'openai' : env.ANTHROPIC_API_KEY ? 'anthropic' : undefined)
  if (provider === undefined) {
    throw new UsageError(
      'no model configured: set OPENAI_API_KEY (and optionally OPENAI_BASE_URL for a compatible server) ' +
        'or ANTHROPIC_API_KEY, or pass --provider with the matching key in the environment',
    )
  }
  if (provider === 'openai') {
    const apiKey = env.OPENAI_API_KEY
    if (!apiKey) throw new UsageError('--provider openai needs OPENAI_API_KEY in the environment')
    const baseURL = options.baseUrl ?? env.OPENAI_BASE_URL
    return openaiCompatible({
      apiKey,
      model: options.model ?? DEFAULT_MODELS.openai,
      ...(baseURL ? { baseURL } : {}),
    })
  }
  if (provider === 'anthropic') {
    const apiKey = env.ANTHROPIC_API_KEY
    if (!apiKey) throw new UsageError('--provider anthropic needs ANTHROPIC_API_KEY in the environment')
    const baseURL = options.baseUrl ?? env.ANTHROPIC_BASE_URL
    return anthropic({
      apiKey,
      model: options.model ?? DEFAULT_MODELS.anthropic,
      ...(baseURL ? { baseURL } : {}),
    })
  }
  throw new UsageError(`unknown --provider "${provider}"; use openai or anthropic`)
}

/** Asks on the terminal; without one, writes are rejected unless `--yes` was given. */
function terminalApprover(out: Output): Approver {
  return async (request) => {
    if (!process.stdin.isTTY) return 'rejected'
    const rl = createInterface({ input: process.stdin, output: process.stdout })
    try {
      const answer = await rl.question(
        `Allow ${request.name}${request.reason ? ` (${request.reason})` : ''}? [y/N] `,
        {
          signal: request.signal,
        },
      )
      return /^y(es)?$/i.test(answer.trim()) ? 'allowed-once' : 'rejected'
    } catch {
      out.line()
      return 'cancelled'
    } finally {
      rl.close()
    }
  }
}

/** Runs one task against a real model with the workspace tools, recording the session. */
export async function runCommand(options: RunOptions, out: Output): Promise<string> {
  const model = chooseModel(options)
  const store = sqliteStore(options.db)
  const id = `run-${new Date().toISOString().replace(/[:.]/g, '-')}`
  const session = await openSession(store, { id })
  const { runtime, scope } = createToolset({
    root: options.workspace,
    mode: options.mode,
    reportError: (e) => out.error(String(e)),
  })
  out.line(`tooltx run — ${model.name}, mode ${options.mode}, workspace ${options.workspace}`)
  const stop = watchSession(session, runtime, scope, out)
  // Code Mode programs run in the QuickJS sandbox; native mode never starts it.
  const sandbox = options.mode === 'native' ? undefined : quickjsRuntime()
  const agent = createAgent({
    runtime,
    scope,
    session,
    model,
    ...(sandbox ? { codeRuntime: sandbox } : {}),
    approver: options.yes ? fixedApprover('allowed-once') : terminalApprover(out),
    system:
      'You are a careful engineering assistant. Use the tools to inspect the workspace before answering.',
  })
  const onSigint = () => agent.abort()
  process.once('SIGINT', onSigint)
  try {
    agent.send(options.task)
    await agent.whenIdle()
  } finally {
    process.off('SIGINT', onSigint)
    stop()
    await sandbox?.close()
    await session.close()
    await store.close()
  }
  const end = session.events().findLast((event) => event.type === 'turn/end')
  out.line()
  out.line(`Session saved as ${id} in ${options.db}. Replay it with: npx tooltx replay ${id}`)
  if (end?.type === 'turn/end' && end.data.reason === 'error') {
    throw new UsageError(`the run failed: ${end.data.message ?? 'unknown error'}`)
  }
  return id
}
