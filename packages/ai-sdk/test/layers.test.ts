import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { findCycle, importGraph, unresolvedImports, upwardImports } from '../../../test/support/layers.js'

/**
 * The layer rule of packages/ai-sdk/README.md: the helpers (`prompt.ts`, `node-version.ts`) import
 * nothing of the package, the two bridges (`language-model.ts`, `tools.ts`) only the helpers, and
 * `index.ts` only re-exports.
 */
const graph = importGraph(fileURLToPath(new URL('../src/', import.meta.url)))
const LAYERS: Record<string, number> = {
  'node-version.ts': 0,
  'prompt.ts': 0,
  'language-model.ts': 1,
  'tools.ts': 1,
  'index.ts': 2,
}

function layerOf(file: string): number {
  const layer = LAYERS[file]
  if (layer === undefined) throw new Error(`${file} is in no layer; add it to the README and this test`)
  return layer
}

describe('ai-sdk layers (packages/ai-sdk/README.md)', () => {
  it('every source file has a layer and every import resolves', () => {
    expect(graph.files.map(layerOf)).toHaveLength(graph.files.length)
    expect(unresolvedImports(graph)).toEqual([])
  })

  it('no module imports from its own layer or above, and the graph has no cycle', () => {
    const sideways = (from: string, to: string) => layerOf(to) === layerOf(from)
    expect(upwardImports(graph, layerOf, sideways)).toEqual([])
    expect(findCycle(graph)).toBeUndefined()
  })
})
