import {
  type AnyToolDefinition,
  type Approver,
  createToolRuntime,
  type Guard,
  type RuntimeScope,
  type ToolMode,
  type ToolRuntime,
} from '@tooltx/core'
import { RUN_CODE } from '@tooltx/core/internal'
import { type SessionEvent, suspendedTurn } from '@tooltx/session'
import { UsageError } from './display/output.js'
import { withPresenter } from './display/presenters.js'
import { generalTools } from './tools/general-tools.js'
import { grepTool } from './tools/grep.js'
import { listFilesTool } from './tools/list-files.js'
import { pathBoundaryGuard } from './tools/path-boundary.js'
import { readFileTool } from './tools/read-file.js'
import { runCheckTool } from './tools/run-check.js'
import { openWorkspace, type Workspace } from './tools/workspace.js'
import { freeTextArguments } from './tools/workspace-tool.js'
import { writeNoteTool } from './tools/write-note.js'
import { registerToolsModule } from './tools-module.js'

/** The runtime, scope and workspace the CLI's agent works with. */
export interface Toolset {
  readonly runtime: ToolRuntime
  readonly scope: RuntimeScope
  readonly workspace: Workspace
}

/** Options of `createToolset`. */
export interface ToolsetOptions {
  /** The directory the tools may touch: the boundary guard's workspace. */
  root: string
  mode?: ToolMode
  /** Where contained hook and sink errors go. */
  reportError?: (error: unknown) => void
  /** The deadline of `run_check`, in milliseconds. */
  checkTimeoutMs?: number
  /** `--allow-shell` rules: `shell` commands they allow run without asking (K2.19). */
  allowShell?: readonly string[]
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
 * The workspace tools behind the CLI's policy: every write asks for approval first, and the
 * workspace's boundaries hold twice over. A guard that no approval can override
 * (`pathBoundaryGuard`) denies any call in the scope — a workspace tool, a tool the CLI imports
 * into it later (`--mcp`), a nested `run_code` call — with a string argument that could name a
 * secret (`.env*` files, `isProtectedPath`) or a path outside the workspace; and the workspace
 * itself refuses or skips them in every workspace tool, however they are reached (a search, a
 * symlink). The program of `run_code` and the free-text arguments the workspace tools declare
 * are not read as paths.
 */
export function createToolset(options: ToolsetOptions): Toolset {
  return assembleToolset(options, (workspace) => ({
    tools: workspaceTools(workspace, options),
    policy: ({ runtime, scope }) =>
      runtime.onPreExecute(
        async (exec, next) =>
          exec.name === 'write_note' ? { kind: 'ask', reason: 'writes a file in the workspace' } : next(),
        { scope },
      ),
  }))
}

/**
 * The general workspace tools of `run` and `worker` without `--tools` (K2.15, `generalTools`:
 * list, read, grep, edit, write, shell) behind the same boundary guard as `createToolset`'s,
 * with their own policy: every write and edit asks with the diff it makes, and every shell
 * command asks unless an `allowShell` rule allows it.
 */
export function createWorkspaceToolset(options: ToolsetOptions): Toolset & ResumedAsks {
  let expectShown: ReturnType<typeof generalTools>['expectShown'] = () => {}
  const toolset = assembleToolset(options, (workspace) => {
    const general = generalTools(workspace)
    expectShown = general.expectShown
    return {
      tools: general.tools,
      policy: ({ runtime, scope, boundary }) =>
        general.install(runtime, scope, boundary, options.allowShell ?? []),
    }
  })
  return {
    ...toolset,
    bindResumedAsk(events) {
      // Only an approved call runs on resume; an undecided or denied one binds nothing.
      const waiting = suspendedTurn(events)
      const asked = waiting?.asked
      if (
        waiting?.decided?.outcome === 'allowed-once' &&
        asked?.reason !== undefined &&
        asked.argumentsDigest !== undefined
      )
        expectShown(asked.callId, asked.argumentsDigest, asked.reason)
    },
  }
}

/** What a toolset does before a suspended turn resumes. */
export interface ResumedAsks {
  /**
   * Before the suspended turn `events` end in resumes (F2.7): binds the decision of its waiting
   * call to the change its ask recorded, so a write or edit whose change rebuilt now differs —
   * the file changed after it was shown — fails `CONFLICT` and writes nothing (K5.13). Does
   * nothing when the session has no suspended turn.
   */
  readonly bindResumedAsk: (events: readonly SessionEvent[]) => void
}

/** The tools of a toolset and the policy that goes with them, given its boundary guard. */
interface ToolsetParts {
  readonly tools: AnyToolDefinition[]
  readonly policy: (toolset: Toolset & { readonly boundary: Guard }) => void
}

/**
 * A runtime and scope over `options.root` with the tools `parts` makes, each signed with its
 * presenter, behind the boundary guard (reading the tools' declared free text as text), and
 * the policy it registers.
 */
function assembleToolset(options: ToolsetOptions, parts: (workspace: Workspace) => ToolsetParts): Toolset {
  const workspace = openWorkspace(options.root)
  const runtime = createToolRuntime({
    mode: options.mode ?? 'native',
    ...(options.reportError ? { reportError: options.reportError } : {}),
  })
  const scope = runtime.scope()
  const freeText = codeFreeText()
  const { tools, policy } = parts(workspace)
  for (const def of tools) {
    freeText.set(def.name, new Set(freeTextArguments(def)))
    // Each tool signs its results with its presenter, so a replay can tell it from a user's tool of the same name.
    scope.register(withPresenter(`tooltx/${def.name}`, def))
  }
  const boundary = pathBoundaryGuard(workspace.root, freeText)
  scope.guard(boundary)
  policy({ runtime, scope, workspace, boundary })
  return { runtime, scope, workspace }
}

/**
 * The free text of `run_code` for the boundary guard: its program is code and its description
 * prose; each nested call it makes is guarded itself.
 */
function codeFreeText(): Map<string, Set<string>> {
  return new Map([[RUN_CODE, new Set(['code', 'description'])]])
}

/** A toolset and the names of the tools it offers, besides `run_code`. */
export interface OfferedToolset extends Toolset, ResumedAsks {
  readonly names: readonly string[]
}

/**
 * The tools `run` and `worker` offer (K6.1, K6.2): without `tools`, the general workspace
 * tools of `createWorkspaceToolset`; with it, the tools the user's module at `tools` registers on a runtime of
 * their own (with any policy it registers: guards, pre-execute hooks that ask), behind the
 * CLI's boundary guard, which judges every call in the scope as it does the workspace tools'
 * (K1.5–K1.7; none of the module's arguments is free text). A module that fails to load, or
 * registers no tool, is a usage error (K6.3).
 */
export async function openToolset(options: ToolsetOptions & { tools?: string }): Promise<OfferedToolset> {
  if (options.tools === undefined) {
    const toolset = createWorkspaceToolset(options)
    return { ...toolset, names: toolNames(toolset.runtime, toolset.scope) }
  }
  const workspace = openWorkspace(options.root)
  const runtime = createToolRuntime({
    mode: options.mode ?? 'native',
    ...(options.reportError ? { reportError: options.reportError } : {}),
  })
  await registerToolsModule(runtime, options.tools)
  const scope = runtime.scope()
  const names = toolNames(runtime, scope)
  if (names.length === 0)
    throw new UsageError(
      `the tools module ${options.tools} registered no tools, so there is nothing to offer the model`,
      2,
    )
  scope.guard(pathBoundaryGuard(workspace.root, codeFreeText()))
  // A module's tools keep their own policy: nothing binds their resumed asks.
  return { runtime, scope, workspace, names, bindResumedAsk: () => {} }
}

function toolNames(runtime: ToolRuntime, scope: RuntimeScope): string[] {
  return runtime
    .view(scope)
    .list()
    .map((def) => def.name)
    .filter((name) => name !== RUN_CODE)
}

/** An approver that answers every request the same way (for the demo and `--yes`). */
export function fixedApprover(outcome: 'allowed-once' | 'rejected'): Approver {
  return () => outcome
}
