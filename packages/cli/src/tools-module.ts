/**
 * User modules the CLI loads (`--tools`, `--policy`): imported by path, with every way they can
 * be wrong turned into a usage error that names the module and says what it must export.
 */
import { statSync } from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import type { AnyToolDefinition, ToolRuntime } from '@tooltx/core'
import { UsageError } from './output.js'

/** The shape a tools module must have, as every error about one states it. */
const TOOLS_SHAPE =
  'export (as `default` or as `tools`) an array of tool definitions, or a function (runtime) => … that registers them or returns that array'

/** The exports of the module at `file`; a missing file or a failed import is a usage error naming it. */
export async function importModule(file: string, what: string): Promise<Record<string, unknown>> {
  const resolved = path.resolve(file)
  if (!statSync(resolved, { throwIfNoEntry: false })?.isFile())
    throw new UsageError(`cannot load the ${what} module ${file}: there is no file ${resolved}`, 2)
  try {
    return (await import(pathToFileURL(resolved).href)) as Record<string, unknown>
  } catch (error) {
    throw new UsageError(`cannot load the ${what} module ${file}: ${(error as Error).message}`, 2)
  }
}

/** Calls a module's function with the runtime, turning a throw into a usage error naming the module. */
export async function callModule(
  fn: (runtime: ToolRuntime) => unknown,
  runtime: ToolRuntime,
  what: string,
  file: string,
): Promise<unknown> {
  try {
    return await fn(runtime)
  } catch (error) {
    throw new UsageError(`the ${what} module ${file} threw while registering: ${(error as Error).message}`, 2)
  }
}

/**
 * Registers the tools of the module at `file` on `runtime` (Y3.4): its `default` export, else
 * its `tools` export, is an array of definitions, or a function that receives the runtime and
 * registers them (and any policy) itself or returns such an array. Anything else, a definition
 * the runtime refuses, or a throwing function is a usage error naming the module.
 */
export async function registerToolsModule(runtime: ToolRuntime, file: string): Promise<void> {
  const exports = await importModule(file, 'tools')
  let tools = exports.default ?? exports.tools
  if (typeof tools === 'function')
    tools = await callModule(tools as (runtime: ToolRuntime) => unknown, runtime, 'tools', file)
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
