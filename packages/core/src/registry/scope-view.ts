/**
 * The one live view of a scope (R4.1): what the model is shown is what executes. Every
 * method reads the registry at the time it is called (R4.3).
 */

import { type AnyToolDefinition, RUN_CODE } from '../contract/definition.js'
import type { ModelToolSchema } from '../contract/messages.js'
import type { ToolSurface, ToolView } from '../contract/tool-view.js'
import { deepFreeze, isFrozenSnapshot, snapshotJson } from '../foundation/lossless-json.js'
import { toModelSchema } from '../schema/model-schema.js'
import { sdkText } from '../tool/sdk.js'
import type { Registry, ScopeRecord } from './registry.js'
import { CODE_ONLY_RULE } from './tool-mode.js'

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

/** The deep-frozen surface of `defs`, the definitions `record`'s view lists (M2). */
function buildSurface(
  registry: Registry,
  record: ScopeRecord | undefined,
  defs: AnyToolDefinition[],
): ToolSurface {
  const mode = registry.mode(record)
  if (mode === 'native') return surfaceOf(defs.map(toModelSchema).sort(byName), '')
  const sdk = sdkText(defs)
  if (mode === 'code') {
    const runCode = defs.find((def) => def.name === RUN_CODE)!
    return surfaceOf([toModelSchema(runCode)], `${CODE_ONLY_RULE}\n\n${sdk}`)
  }
  return surfaceOf(defs.map(toModelSchema).sort(byName), sdk)
}

/** Freezes a surface and its fresh schemas, so one object can be handed out until the next change. */
function surfaceOf(tools: ModelToolSchema[], instructions: string): ToolSurface {
  return Object.freeze({ tools: deepFreeze(tools), instructions })
}

/** The view of `record` (the global view when `undefined`, R2.4) over `registry`. */
export function createScopeView(registry: Registry, record: ScopeRecord | undefined): ToolView {
  const list = () => registry.list(record).map((entry) => entry.def)
  let cached: { readonly version: number; readonly surface: ToolSurface } | undefined
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
        // Classify a frozen snapshot, never the caller's live object (M3.8); one that already
        // is a frozen snapshot can never change, so it is used as is (Q3.1).
        const args = field(input, 'arguments')
        if (isFrozenSnapshot(args)) return def.isConcurrencySafe(args) === true ? 'parallel' : 'exclusive'
        const snap = snapshotJson(args, { freeze: true, root: 'arguments' })
        return snap.ok && def.isConcurrencySafe(snap.value) === true ? 'parallel' : 'exclusive'
      } catch {
        return 'exclusive'
      }
    },
    surface() {
      // Rebuilt only after a change anywhere in the registry (Q2.1, Q2.2): a change to an
      // ancestor scope or the global layer moves the same version, so the view stays live.
      if (cached === undefined || cached.version !== registry.version) {
        cached = { version: registry.version, surface: buildSurface(registry, record, list()) }
      }
      return cached.surface
    },
  }
  return Object.freeze(view)
}
