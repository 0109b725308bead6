import { statSync } from 'node:fs'
import path from 'node:path'
import { parseArgs } from 'node:util'
import type { ApprovalsOption } from '@tooltx/agent'
import type { ToolMode } from '@tooltx/core'
import { DEFAULT_DB } from '../display/default-db.js'
import { seeHelp, UsageError } from '../display/output.js'

/**
 * A command's flags by kind: `strings` take a value, `repeatable` take a value and may be given
 * more than once, `booleans` are switches. Every command also takes `-h`/`--help`.
 */
export interface FlagSpec {
  readonly strings?: readonly string[]
  readonly repeatable?: readonly string[]
  readonly booleans?: readonly string[]
}

type Names<L> = L extends readonly (infer N extends string)[] ? N : never

/** The `parseArgs` options of a `FlagSpec`. */
export type FlagOptions<S extends FlagSpec> = { [K in Names<S['strings']>]: { type: 'string' } } & {
  [K in Names<S['repeatable']>]: { type: 'string'; multiple: true }
} & { [K in Names<S['booleans']>]: { type: 'boolean' } } & { help: { type: 'boolean'; short: 'h' } }

/** The `parseArgs` options for `spec`, `--help` included. */
export function flagOptions<const S extends FlagSpec>(spec: S): FlagOptions<S> {
  const options: Record<string, { type: 'string' | 'boolean'; multiple?: true; short?: 'h' }> = {}
  for (const name of spec.strings ?? []) options[name] = { type: 'string' }
  for (const name of spec.repeatable ?? []) options[name] = { type: 'string', multiple: true }
  for (const name of spec.booleans ?? []) options[name] = { type: 'boolean' }
  options.help = { type: 'boolean', short: 'h' }
  return options as FlagOptions<S>
}

/** What `parseArgs` returns for the flags of `spec` and any positionals. */
export type ParsedFlags<S extends FlagSpec> = ReturnType<
  typeof parseArgs<{ args: string[]; allowPositionals: true; strict: true; options: FlagOptions<S> }>
>

/**
 * Parses `args` with the flags of `spec`. A flag the command does not take, a flag that needs a
 * value given none, and a switch given one are usage errors said in our words (K2.26), never
 * Node's option-parser text.
 */
export function parseFlags<const S extends FlagSpec>(
  args: string[],
  spec: S,
  usage: CommandUsage,
): ParsedFlags<S> {
  const options = flagOptions(spec)
  const { tokens } = parseArgs({ args, allowPositionals: true, strict: false, tokens: true, options })
  for (const token of tokens) {
    if (token.kind === 'option') checkFlag(usage, options, token)
  }
  return parseArgs({ args, allowPositionals: true, strict: true, options })
}

/** One flag as the option parser read it. */
interface FlagToken {
  readonly name: string
  readonly rawName: string
  readonly value?: string | undefined
  readonly inlineValue?: boolean | undefined
}

/** Refuses `token` unless the command takes it and it has a value exactly when it needs one. */
function checkFlag(usage: CommandUsage, options: FlagOptions<FlagSpec>, token: FlagToken): void {
  const option = Object.hasOwn(options, token.name)
    ? (options as Record<string, { type: 'string' | 'boolean' }>)[token.name]
    : undefined
  const flag = option === undefined ? token.rawName : `--${token.name}`
  if (option === undefined) throw usageError(usage, `${usage.name} has no option ${flag}`)
  if (option.type === 'boolean' && token.value !== undefined) {
    throw usageError(usage, `${flag} is a switch and takes no value, got "${token.value}"`)
  }
  if (option.type === 'string' && token.value === undefined) {
    throw usageError(usage, `${flag} needs a value: ${flag} VALUE`)
  }
  if (option.type === 'string' && token.inlineValue === false && token.value?.startsWith('-')) {
    throw usageError(
      usage,
      `${flag} needs a value, got the option "${token.value}"; write ${flag}=${token.value} if that is the value`,
    )
  }
}

/** A command's name, as the user types it, and its help, which `--help` prints. */
export interface CommandUsage {
  readonly name: string
  readonly help: string
}

/**
 * The usage error (exit 2) that says `message` on one line, then where the command's help is
 * (K2.26): the whole help would bury the line that matters.
 */
export function usageError(usage: CommandUsage, message: string): UsageError {
  return new UsageError(`${message}\n${seeHelp(usage.name)}`, 2)
}

/** The help lines of `--db` for a command that opens or creates the session database. */
export const DB_HELP = `  --db PATH|URL    the session database: a SQLite file, a folder of .jsonl logs (a path
                   ending in /) or a PostgreSQL connection string (postgres://user@host/db);
                   default ${DEFAULT_DB}`

/** The help lines of `--tools` for a command that runs an agent (`run`, `worker`). */
export const TOOLS_HELP = `  --tools FILE     offer the tools of your module instead of the workspace tools: its
                   default (or \`tools\`) export is an array of tool definitions, or a
                   function (runtime) => … that registers them and any policy; the
                   workspace's secrets and boundary guard still judges every call`

/** `--db`, or the default store (`DEFAULT_DB`) when it is absent or empty. */
export function dbPath(value: unknown): string {
  return typeof value === 'string' && value !== '' ? value : DEFAULT_DB
}

/** `values` without its `undefined` members: the options a command passes only when given. */
export function defined<T extends Record<string, unknown>>(
  values: T,
): { [K in keyof T]?: Exclude<T[K], undefined> } {
  const present: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(values)) if (value !== undefined) present[key] = value
  return present as { [K in keyof T]?: Exclude<T[K], undefined> }
}

/** Refuses any positional argument of a command that takes none. */
export function noPositionals(usage: CommandUsage, positionals: readonly string[]): void {
  if (positionals.length > 0) {
    throw usageError(usage, `${usage.name} takes no arguments, got "${positionals.join(' ')}"`)
  }
}

/** A whole-number flag (`min` or more), or `fallback` when absent. */
export function count(
  usage: CommandUsage,
  flag: string,
  value: string | undefined,
  fallback: number,
  min = 1,
): number {
  if (value === undefined) return fallback
  const n = Number(value)
  if (!/^\d+$/.test(value) || n < min) {
    throw usageError(usage, `${flag} must be a whole number of at least ${min}, got "${value}"`)
  }
  return n
}

/** `--db` of a command that needs PostgreSQL: workers share sessions and the queue through it. */
export function postgresUrl(usage: CommandUsage, value: string | undefined): string {
  if (value === undefined || !/^postgres(ql)?:\/\//.test(value)) {
    throw usageError(
      usage,
      `${usage.name} needs --db postgres://user:password@host:port/database (workers share sessions and the queue through PostgreSQL), got ${value === undefined ? 'no --db' : `"${value}"`}`,
    )
  }
  return value
}

/** `--workspace` as an absolute path (default: the current directory); a usage error unless it is a folder. */
export function workspaceFolder(value: string | undefined): string {
  const workspace = path.resolve(value ?? '.')
  if (!statSync(workspace, { throwIfNoEntry: false })?.isDirectory()) {
    throw new UsageError(
      `--workspace ${workspace} is not a directory; pass the folder the tools may touch`,
      2,
    )
  }
  return workspace
}

/** The flags `run` and `worker` take a value for to build their agent (with `--yes`). */
export const AGENT_STRING_FLAGS = ['provider', 'model', 'base-url', 'mode', 'workspace', 'tools'] as const

/** The agent flags as `agentFlags` returns them. */
export interface AgentFlags {
  provider?: string
  model?: string
  baseUrl?: string
  mode: ToolMode
  workspace: string
  tools?: string
}

const MODES: readonly string[] = ['native', 'code', 'both']

const PROVIDERS: readonly string[] = ['openai', 'anthropic']

/** The checked agent flags: provider, model, endpoint, mode, workspace folder and tools module. */
export function agentFlags(
  usage: CommandUsage,
  values: { readonly [K in (typeof AGENT_STRING_FLAGS)[number]]?: string },
): AgentFlags {
  const mode = values.mode ?? 'native'
  if (!MODES.includes(mode)) throw usageError(usage, `--mode must be native, code or both, got "${mode}"`)
  if (values.provider !== undefined && !PROVIDERS.includes(values.provider)) {
    throw usageError(usage, `--provider must be openai or anthropic, got "${values.provider}"`)
  }
  const workspace = workspaceFolder(values.workspace)
  return {
    ...defined({ provider: values.provider, model: values.model, baseUrl: values['base-url'] }),
    mode: mode as ToolMode,
    workspace,
    ...defined({ tools: values.tools }),
  }
}

/**
 * `--approvals` and `--approval-expiry` (K5.10, K5.14, N2.16): `--approvals durable` lets an ask
 * wait in the session for `tooltx approve`, for `--approval-expiry` seconds (a whole number >= 1;
 * default 24 h) before it expires and its call is denied. `undefined` without `--approvals`;
 * another `--approvals`, `durable` with `--yes`, a bad expiry or an expiry without `durable`
 * is a usage error.
 */
export function durableFlag(
  usage: CommandUsage,
  values: {
    approvals?: string | undefined
    yes?: boolean | undefined
    'approval-expiry'?: string | undefined
  },
): ApprovalsOption | undefined {
  const expiry = values['approval-expiry']
  const value = values.approvals
  if (value === undefined) {
    if (expiry !== undefined) throw usageError(usage, '--approval-expiry goes with --approvals durable')
    return undefined
  }
  if (value !== 'durable') throw usageError(usage, `--approvals takes only "durable", got "${value}"`)
  if (values.yes === true)
    throw usageError(usage, '--approvals durable and --yes contradict each other: pick one')
  if (expiry === undefined) return 'durable'
  return { mode: 'durable', expiresAfterMs: count(usage, '--approval-expiry', expiry, 1) * 1000 }
}
