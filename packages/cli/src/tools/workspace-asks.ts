import {
  type Execution,
  type Guard,
  type JsonValue,
  type PreDecision,
  type PreExecuteHandler,
  ToolError,
} from '@tooltx/core'
import { plannedEdit } from './edit-file.js'
import { type ChangeLedger, changedSinceShown, changePresentation, type FileChange } from './file-change.js'
import { allowedCommand } from './shell-command.js'
import type { Workspace } from './workspace.js'
import { plannedWrite } from './write-file.js'

/** What `workspaceAsks` needs: the workspace, where approved bases go, the guards, the allow-list. */
export interface WorkspaceAskOptions {
  readonly workspace: Workspace
  readonly ledger: ChangeLedger
  /** The guards that judge every call after its approval: a call they deny is not put to anyone. */
  readonly guards: readonly Guard[]
  /** `--allow-shell` rules: commands they allow run without asking (`allowedCommand`). */
  readonly allowShell: readonly string[]
}

/** The members of a call's arguments, or `undefined` when they are not an object. */
function fields(args: JsonValue | undefined): Readonly<Record<string, JsonValue>> | undefined {
  return typeof args === 'object' && args !== null && !Array.isArray(args) ? args : undefined
}

/**
 * The pre-execute policy of the general workspace tools (K2.15–K2.19): `write_file` and
 * `edit_file` ask with the change they would make to the file as it is now (`changePresentation`,
 * recorded as the ask's reason) and record in `ledger` the text it was made from, so the body
 * refuses to write over a file that changed since (`CONFLICT`); a change that cannot be made
 * (no match, a binary file) asks nobody and its body fails with that error. `shell` asks unless
 * an `--allow-shell` rule allows the command. A call the guards will deny, or whose arguments
 * are not of the tool's types (the body's validation refuses them), is passed on unasked.
 */
export function workspaceAsks(options: WorkspaceAskOptions): PreExecuteHandler {
  const { workspace, ledger } = options
  const askChange = async (
    exec: Execution,
    planned: Promise<FileChange>,
    next: () => Promise<PreDecision>,
    shown: string | undefined,
  ): Promise<PreDecision> => {
    try {
      const change = await planned
      const reason = changePresentation(change)
      // A resumed durable decision holds only for the change its ask showed (K5.13).
      if (shown !== undefined && shown !== reason) ledger.refuse(exec.token, changedSinceShown(change.path))
      else ledger.record(exec.token, change.before)
      return { kind: 'ask', reason }
    } catch (error) {
      if (!(error instanceof ToolError)) throw error
      ledger.refuse(exec.token, error)
      return next()
    }
  }
  return async (exec, next) => {
    // Taken by the call asked about, so what a resume bound never lingers for it.
    const shown = await ledger.takeShown(exec.callId, exec.arguments)
    const args = fields(exec.arguments)
    if (args === undefined || options.guards.some((guard) => guard(exec) !== undefined)) return next()
    const { path, content, old_text, new_text, replace_all, command } = args
    switch (exec.name) {
      case 'write_file':
        if (typeof path !== 'string' || typeof content !== 'string') return next()
        return askChange(exec, plannedWrite(workspace, { path, content }), next, shown)
      case 'edit_file':
        if (typeof path !== 'string' || typeof old_text !== 'string' || typeof new_text !== 'string')
          return next()
        return askChange(
          exec,
          plannedEdit(workspace, { path, old_text, new_text, replace_all: replace_all === true }),
          next,
          shown,
        )
      case 'shell':
        if (typeof command !== 'string' || allowedCommand(command, options.allowShell)) return next()
        return { kind: 'ask', reason: 'runs a shell command in the workspace, with your permissions' }
      default:
        return next()
    }
  }
}
