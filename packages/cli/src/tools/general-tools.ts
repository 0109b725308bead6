import type { AnyToolDefinition, Guard, RuntimeScope, ToolRuntime } from '@tooltx/core'
import { editFileTool } from './edit-file.js'
import { ChangeLedger } from './file-change.js'
import { grepTool } from './grep.js'
import { listFilesTool } from './list-files.js'
import { readFileTool } from './read-file.js'
import { shellTool } from './shell.js'
import { shellWordsGuard } from './shell-command.js'
import type { Workspace } from './workspace.js'
import { workspaceAsks } from './workspace-asks.js'
import { writeFileTool } from './write-file.js'

/**
 * The general workspace tools `tooltx run` and `tooltx worker` offer without `--tools` (K2.15):
 * list, read (line ranges), grep, `edit_file`, `write_file` and `shell`, and the policy that
 * goes with them: `install` registers, on `scope`, the guard that reads `shell` commands' words
 * as paths (after the boundary guard it is given) and the asks of `workspaceAsks`, so a write or
 * edit is approved as the diff it makes and a command unless `allowShell` allows it.
 */
export function generalTools(workspace: Workspace): {
  readonly tools: AnyToolDefinition[]
  readonly install: (
    runtime: ToolRuntime,
    scope: RuntimeScope,
    boundary: Guard,
    allowShell: readonly string[],
  ) => void
  /**
   * Binds a resumed durable decision of call `callId`, asked about arguments of digest
   * `argumentsDigest`, to the change its ask recorded (K5.13).
   */
  readonly expectShown: (callId: string, argumentsDigest: string, reason: string) => void
} {
  const ledger = new ChangeLedger()
  const tools = [
    listFilesTool(workspace),
    readFileTool(workspace),
    grepTool(workspace),
    editFileTool(workspace, ledger),
    writeFileTool(workspace, ledger),
    shellTool(workspace),
  ] as AnyToolDefinition[]
  return {
    tools,
    expectShown: (callId, digest, reason) => ledger.expectShown(callId, digest, reason),
    install(runtime, scope, boundary, allowShell) {
      const words = shellWordsGuard(boundary)
      scope.guard(words)
      runtime.onPreExecute(workspaceAsks({ workspace, ledger, guards: [boundary, words], allowShell }), {
        scope,
      })
      // A call rejected, denied or failed before its body leaves its recorded base behind.
      runtime.onResult((exec) => ledger.forget(exec.token), { scope })
    },
  }
}
