/**
 * User modules the CLI loads (`--tools`, `--policy`): imported by path, with every way they can
 * be wrong turned into a usage error that names the module and says what it must export.
 */
import { statSync } from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import type { AnyToolDefinition, ToolRuntime } from '@tooltx/core'
import { UsageError } from './display/output.js'
import { failurePlace } from './module-failure.js'

/** The shape a tools module must have, as every error about one states it. */
const TOOLS_SHAPE =
  'export (as `default` or as `tools`) an array of tool definitions, or a function (runtime) => … that registers them or returns that array'

/** How long loading a module, or its registering function, may take by default (A1.10). */
export const MODULE_SETTLE_MS = 10_000

/**
 * `work`'s value, or a usage error saying `what` did not settle within `ms` once that much time
 * has passed: a promise that never settles cannot leave the process to exit on an empty event
 * loop (Node's "unsettled top-level await", exit 13) with nothing said.
 */
async function settledWithin<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new UsageError(`${what} did not settle within ${ms} ms; make it finish, or resolve its promise`, 2),
        ),
      ms,
    )
  })
  try {
    return await Promise.race([work, late])
  } finally {
    clearTimeout(timer)
  }
}

/** `error`'s message, after the `path:line:column` where the module at `resolved` failed when known (K6.3). */
function why(error: unknown, resolved: string): string {
  const message = error instanceof Error ? error.message : String(error)
  const where = failurePlace(error, resolved)
  return where === undefined ? message : `${where}: ${message}`
}

/**
 * The exports of the module at `file`; a missing file, a failed import (with the place it
 * failed), or an import (its top-level `await`) that does not settle within `ms` is a usage
 * error naming it.
 */
export async function importModule(
  file: string,
  what: string,
  ms = MODULE_SETTLE_MS,
): Promise<Record<string, unknown>> {
  const resolved = path.resolve(file)
  if (!statSync(resolved, { throwIfNoEntry: false })?.isFile())
    throw new UsageError(`cannot load the ${what} module ${file}: there is no file ${resolved}`, 2)
  const loading = import(pathToFileURL(resolved).href) as Promise<Record<string, unknown>>
  try {
    return await settledWithin(loading, ms, `loading the ${what} module ${file}`)
  } catch (error) {
    if (error instanceof UsageError) throw error
    throw new UsageError(`cannot load the ${what} module ${file}: ${why(error, resolved)}`, 2)
  }
}

/**
 * Calls a module's function with the runtime, turning a throw, or a promise that does not settle
 * within `ms`, into a usage error naming the module.
 */
export async function callModule(
  fn: (runtime: ToolRuntime) => unknown,
  runtime: ToolRuntime,
  what: string,
  file: string,
  ms = MODULE_SETTLE_MS,
): Promise<unknown> {
  try {
    return await settledWithin(
      Promise.resolve().then(() => fn(runtime)),
      ms,
      `the ${what} module ${file}'s registering function`,
    )
  } catch (error) {
    if (error instanceof UsageError) throw error
    throw new UsageError(
      `the ${what} module ${file} threw while registering: ${why(error, path.resolve(file))}`,
      2,
    )
  }
}

/**
 * Registers the tools of the module at `file` on `runtime` (Y3.4): its `default` export, else
 * its `tools` export, is an array of definitions, or a function that receives the runtime and
 * registers them (and any policy) itself or returns such an array. Anything else, a definition
 * the runtime refuses, a throwing function, or a load or function that does not settle within
 * `ms` is a usage error naming the module.
 */
export async function registerToolsModule(
  runtime: ToolRuntime,
  file: string,
  ms = MODULE_SETTLE_MS,
): Promise<void> {
  const exports = await importModule(file, 'tools', ms)
  let tools = exports.default ?? exports.tools
  if (typeof tools === 'function')
    tools = await callModule(tools as (runtime: ToolRuntime) => unknown, runtime, 'tools', file, ms)
  else if (tools === undefined) {
    const names = Object.keys(exports)
    const has = names.length === 0 ? 'nothing' : `only ${names.map((n) => `\`${n}\``).join(', ')}`
    throw new UsageError(`the tools module ${file} exports ${has}; ${TOOLS_SHAPE}`, 2)
  }
  if (tools === undefined) return
  if (!Array.isArray(tools))
    throw new UsageError(`the tools module ${file} gives ${describe(tools)}; ${TOOLS_SHAPE}`, 2)
  for (const [i, def] of (tools as AnyToolDefinition[]).entries()) {
    try {
      runtime.register(def)
    } catch (error) {
      throw new UsageError(
        `the tools module ${file} holds a tool the runtime refuses (entry ${i}): ${(error as Error).message}`,
        2,
      )
    }
  }
}

function describe(value: unknown): string {
  if (value === null) return 'null'
  return typeof value === 'object' ? 'an object that is not an array' : `a ${typeof value}`
}
