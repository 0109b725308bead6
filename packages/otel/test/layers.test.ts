import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { findCycle, importGraph, unresolvedImports, upwardImports } from '../../../test/support/layers.js'

/**
 * The layer rule of packages/otel/README.md, checked on the source: `otel-api.ts` (the lazy
 * loader of the optional OpenTelemetry API) imports nothing of the package, `instrument.ts`
 * builds on it, `index.ts` only exports; the import graph has no cycle.
 */
const graph = importGraph(fileURLToPath(new URL('../src/', import.meta.url)))

/** Bottom to top. */
const LAYERS = ['otel-api.ts', 'instrument.ts', 'index.ts']

function layerOf(file: string): number {
  const index = LAYERS.indexOf(file)
  if (index < 0) throw new Error(`${file} is in no layer; add it to the README and this test`)
  return index
}

describe('otel layers (packages/otel/README.md)', () => {
  it('every import of packages/otel/src resolves to a source file', () => {
    expect(unresolvedImports(graph)).toEqual([])
  })

  it('no module imports from a layer above its own', () => {
    expect(graph.files.sort()).toEqual([...LAYERS].sort())
    expect(upwardImports(graph, layerOf)).toEqual([])
  })

  it('the import graph of packages/otel/src has no cycle', () => {
    expect(findCycle(graph)).toBeUndefined()
  })
})
