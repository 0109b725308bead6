import {
  type AnyToolDefinition,
  type Approver,
  createToolRuntime,
  type Mode,
  type RuntimeScope,
  type ToolRuntime,
} from '@tooltx/core'
import { withPresenter } from './presenters.js'
import { grepTool } from './tools/grep.js'
import { listFilesTool } from './tools/list-files.js'
import { isProtectedPath } from './tools/protected-paths.js'
import { readFileTool } from './tools/read-file.js'
import { runCheckTool } from './tools/run-check.js'
import { openWorkspace, type Workspace } from './tools/workspace.js'
import { writeNoteTool } from './tools/write-note.js'

/** The runtime, scope and workspace the CLI's agent works with. */
export interface Toolset {
  readonly runtime: ToolRuntime
  readonly scope: RuntimeScope
  readonly workspace: Workspace
}

/** Options of `createToolset`. */
export interface ToolsetOptions {
  /** The directory the tools may touch. */
  root: string
  mode?: Mode
  /** Where contained hook and sink errors go. */
  reportError?: (error: unknown) => void
  /** The deadline of `run_check`, in milliseconds. */
  checkTimeoutMs?: number
}

/**
 * The CLI's workspace tools over `workspace` (list, read, grep, write a note, run a check), as
 * `defineTool` built them; `createToolset` signs each with its presenter when it registers it.
 */
export function workspaceTools(
  workspace: Workspace,
  options: { checkTimeoutMs?: number } = {},
): AnyToolDefinition[] {
  return [
    listFilesTool(workspace),
    readFileTool(workspace),
    grepTool(workspace),
    writeNoteTool(workspace),
    runCheckTool(workspace, { timeoutMs: options.checkTimeoutMs ?? 1_000 }),
  ]
}

/**
 * The workspace tools behind the CLI's policy: every write asks for approval first, and
 * secrets (`.env*` files, `isProtectedPath`) are off limits twice over — a guard that no
 * approval can override denies a call whose `path` names one, and the workspace itself refuses
 * or skips them in every tool, however they are reached (a search, a symlink, `run_code`).
 */
export function createToolset(options: ToolsetOptions): Toolset {
  const workspace = openWorkspace(options.root)
  const runtime = createToolRuntime({
    mode: options.mode ?? 'native',
    ...(options.reportError ? { reportError: options.reportError } : {}),
  })
  const scope = runtime.scope()
  // Each tool signs its results with its presenter, so a replay can tell it from a user's tool of the same name.
  for (const def of workspaceTools(workspace, options))
    scope.register(withPresenter(`tooltx/${def.name}`, def))
  scope.guard((exec) => {
    const target = (exec.arguments as { path?: unknown } | undefined)?.path
    return typeof target === 'string' && isProtectedPath(target) ? `"${target}" holds secrets` : undefined
  })
  runtime.onPreExecute(
    async (exec, next) =>
      exec.name === 'write_note' ? { kind: 'ask', reason: 'writes a file in the workspace' } : next(),
    { scope },
  )
  return { runtime, scope, workspace }
}

/** An approver that answers every request the same way (for the demo and `--yes`). */
export function fixedApprover(outcome: 'allowed-once' | 'rejected'): Approver {
  return () => outcome
}
