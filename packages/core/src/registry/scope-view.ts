/**
 * The one live view of a scope (R4.1): what the model is shown is what executes. Every
 * method reads the registry at the time it is called (R4.3).
 */
import { sdkText } from '../code-mode/sdk.js'
import { type AnyToolDefinition, RUN_CODE } from '../definition.js'
import { snapshotJson } from '../lossless-json.js'
import type { ModelToolSchema } from '../messages.js'
import { toModelSchema } from '../schema/model-schema.js'
import { CODE_ONLY_RULE } from './modes.js'
import type { Registry, ScopeRecord } from './registry.js'

/** How the scheduler may run a call (M3.7). */
export type ExecutionMode = 'parallel' | 'exclusive'

/** What the model is offered by a view (M2.1). */
export interface ToolSurface {
  /** Model-facing schemas sorted by name. */
  readonly tools: ModelToolSchema[]
  /** Empty in `native` mode; the code-only rule and/or the SDK otherwise. */
  readonly instructions: string
}

/** The live view of one scope (or of the global layer). */
export interface ToolView {
  /** The definition `name` resolves to, or `undefined` (R4.2). */
  get(name: string): AnyToolDefinition | undefined
  /** Every visible definition in first-insertion order, `run_code` last (R2.3). */
  list(): AnyToolDefinition[]
  /** `list()` projected to `{ name, description, parameters }`, parameters copied per call (S5.6). */
  schemas(): ModelToolSchema[]
  /** `'parallel'` only when the visible definition's `isConcurrencySafe` returns exactly `true` (M3.7, M3.8). */
  executionMode(input: { name: string; arguments: unknown; parent?: symbol }): ExecutionMode
  /** The tools and instructions a model request carries (M2). */
  surface(): ToolSurface
}

function byName(a: ModelToolSchema, b: ModelToolSchema): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0
}

/** Reads `input[key]` once; `undefined` when reading throws. */
function field(input: unknown, key: string): unknown {
  try {
    return (input as Record<string, unknown>)[key]
  } catch {
    return undefined
  }
}

/** The view of `record` (the global view when `undefined`, R2.4) over `registry`. */
export function createView(registry: Registry, record: ScopeRecord | undefined): ToolView {
  const list = () => registry.list(record).map((entry) => entry.def)
  const view: ToolView = {
    get: (name) => (typeof name === 'string' ? registry.resolve(record, name)?.def : undefined),
    list,
    schemas: () => list().map(toModelSchema),
    executionMode(input) {
      if (input === null || typeof input !== 'object') return 'exclusive'
      const name = field(input, 'name')
      if (typeof name !== 'string') return 'exclusive'
      const def = registry.resolve(record, name)?.def
      if (def?.isConcurrencySafe === undefined) return 'exclusive'
      // A model-direct call to an ordinary tool under `code` mode is collapsed (M3.1).
      if (field(input, 'parent') === undefined && name !== RUN_CODE && registry.mode(record) === 'code') {
        return 'exclusive'
      }
      try {
        // Classify a frozen snapshot, never the caller's live object (M3.8).
        const snap = snapshotJson(field(input, 'arguments'), { freeze: true, root: 'arguments' })
        return snap.ok && def.isConcurrencySafe(snap.value) === true ? 'parallel' : 'exclusive'
      } catch {
        return 'exclusive'
      }
    },
    surface() {
      const mode = registry.mode(record)
      const defs = list()
      if (mode === 'native')
        return Object.freeze({ tools: defs.map(toModelSchema).sort(byName), instructions: '' })
      const sdk = sdkText(defs)
      if (mode === 'code') {
        const runCode = defs.find((def) => def.name === RUN_CODE)!
        return Object.freeze({ tools: [toModelSchema(runCode)], instructions: `${CODE_ONLY_RULE}\n\n${sdk}` })
      }
      return Object.freeze({ tools: defs.map(toModelSchema).sort(byName), instructions: sdk })
    },
  }
  return Object.freeze(view)
}
