import { auditSession, DEFAULT_HOOK_TIMEOUT_MS } from '@tooltx/agent'
import { createToolRuntime, type ToolRuntime } from '@tooltx/core'
import type { SessionEvent } from '@tooltx/session'
import { type AuditedSession, auditJson, auditTable } from '../display/audit-report.js'
import { type Output, UsageError } from '../display/output.js'
import { existingSessions, resolveSession } from '../session-store.js'
import { generalTools } from '../tools/general-tools.js'
import { openWorkspace } from '../tools/workspace.js'
import { callModule, importModule, registerToolsModule } from '../tools-module.js'
import { workspaceTools } from '../toolset.js'
import { type Command, defineCommand } from './command.js'
import { type CommandUsage, count, DB_HELP, dbPath, defined, usageError } from './flags.js'

/** `tooltx audit`: its help, printed by `--help`; a usage error points to it. */
const USAGE: CommandUsage = {
  name: 'audit',
  help: `Usage: tooltx audit <id…> --policy FILE [options]
       tooltx audit --all --policy FILE [options]

Decides every recorded call of the sessions again — model-direct calls and nested Code Mode
calls, their raw arguments parsed and validated against the tools' current schemas — with the
policy module's pre-execute hooks and guards, without running any tool and with no approver
(an ask is reported as "would ask"), and lists the calls whose decision would change:
session, call, tool, before → after, reason, then the totals. A policy that throws is that
call's policy failure. The same log and policy always print the same report.

The policy module's default export is a function that registers the policy on a runtime:
  export default (runtime) => { runtime.guard(…); runtime.onPreExecute(…) }

Options:
  --policy FILE    the policy module (required)
  --tools FILE     a module whose default export is an array of tool definitions, or a
                   function that registers them (default: the CLI's workspace tools)
  --all            every saved session
  --json           print every audited call and the totals as JSON
  --hook-timeout MS
                   how long the policy may take to decide one call (default
                   ${DEFAULT_HOOK_TIMEOUT_MS}); a call it does not decide in time is a policy
                   failure, and a policy that does not load in time a usage error
${DB_HELP}
  -h, --help       show this help

Exit status: 0 no decision would change, 1 some would (or a failure), 2 a usage error.`,
}

/** Options of the `audit` command. */
export interface AuditCommandOptions {
  db: string
  /** Session ids (`latest` and unique prefixes too); empty with `all`. */
  sessions: readonly string[]
  all: boolean
  /** The policy module: its default export registers the policy on a runtime. */
  policy: string
  /** The tools module (Y3.4): an array of definitions, or a function that registers or returns them. */
  tools?: string
  json: boolean
  /** How long the policy may take to decide one call, and to load and register (A1.9, A1.10). */
  hookTimeoutMs?: number
}

/**
 * Registers the tools module's tools, or without one the CLI's own: the demo's and the general
 * workspace tools of `run` (K2.15), each name once (schemas only; no body runs).
 */
async function registerTools(runtime: ToolRuntime, file: string | undefined, ms: number): Promise<void> {
  if (file !== undefined) return registerToolsModule(runtime, file, ms)
  const workspace = openWorkspace(process.cwd())
  const names = new Set<string>()
  for (const def of [...workspaceTools(workspace), ...generalTools(workspace).tools]) {
    if (names.has(def.name)) continue
    names.add(def.name)
    runtime.register(def)
  }
}

/**
 * Audits stored sessions against a policy (A1): builds a runtime with the tools and the policy
 * module's registrations, decides every recorded call again without running any body
 * (`auditSession`), and prints the calls whose decision would change and the totals, or the
 * `--json` document. A policy whose hooks do not settle within `hookTimeoutMs` fails that call
 * (A1.9), and one whose loading or registration does not is a usage error (A1.10). A session
 * whose log cannot be read is named on stderr and the others are audited (A1.11). Resolves with
 * the exit status: 1 when any decision would change or a session could not be read, else 0.
 */
export async function auditCommand(options: AuditCommandOptions, out: Output): Promise<number> {
  const hookTimeoutMs = options.hookTimeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS
  const policy = (await importModule(options.policy, 'policy', hookTimeoutMs)).default
  if (typeof policy !== 'function') {
    throw new UsageError(
      `the policy module ${options.policy} must \`export default\` a function (runtime) => { runtime.guard(…); runtime.onPreExecute(…) }`,
      2,
    )
  }
  // `both`: the model's direct calls and run_code resolve, so no call is refused by the mode.
  const runtime = createToolRuntime({
    mode: 'both',
    reportError: (error) => out.error(`tooltx: ${String(error)}`),
  })
  await registerTools(runtime, options.tools, hookTimeoutMs)
  await callModule(
    policy as (runtime: ToolRuntime) => unknown,
    runtime,
    'policy',
    options.policy,
    hookTimeoutMs,
  )
  const reader = existingSessions(options.db, 'nothing to audit')
  const audited: AuditedSession[] = []
  let unreadable = 0
  try {
    const stored = await reader.listSessions()
    const ids = options.all
      ? stored.map((info) => info.id)
      : options.sessions.map((s) => resolveSession(s, stored, options.db))
    for (const id of new Set(ids)) {
      let events: readonly SessionEvent[]
      try {
        events = (await reader.read(id)) ?? []
      } catch (error) {
        // One damaged log leaves the others audited (A1.11); the report is then incomplete.
        unreadable++
        out.error(`tooltx: session ${id} could not be audited: ${(error as Error).message}`)
        continue
      }
      audited.push({ id, audit: await auditSession(events, runtime, { hookTimeoutMs }) })
    }
  } finally {
    await reader.close()
  }
  if (options.json) out.line(auditJson(audited))
  else for (const line of auditTable(audited)) out.line(line)
  return unreadable > 0 || audited.some((s) => s.audit.changed > 0) ? 1 : 0
}

/** `tooltx audit`: a policy, and session ids or `--all`. */
export const command: Command = defineCommand(
  USAGE,
  { strings: ['db', 'policy', 'tools', 'hook-timeout'], booleans: ['all', 'json'] },
  async ({ values, positionals }, out) => {
    if (values.policy === undefined || values.policy === '')
      throw usageError(USAGE, 'audit needs --policy FILE')
    if ((values.all === true) === positionals.length > 0)
      throw usageError(USAGE, 'audit needs session ids or --all (not both)')
    return await auditCommand(
      {
        db: dbPath(values.db),
        sessions: positionals,
        all: values.all === true,
        policy: values.policy,
        ...defined({ tools: values.tools }),
        json: values.json === true,
        hookTimeoutMs: count(USAGE, '--hook-timeout', values['hook-timeout'], DEFAULT_HOOK_TIMEOUT_MS),
      },
      out,
    )
  },
)
