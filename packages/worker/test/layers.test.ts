import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { findCycle, importGraph, unresolvedImports, upwardImports } from '../../../test/support/layers.js'

/**
 * The layer rule of packages/worker/README.md, checked on the source: the job format and the
 * guards at the bottom, the queue and the expiry jobs above them, the worker above, index.ts on top;
 * every relative import goes to its own layer or one below, and there is no cycle.
 */
const graph = importGraph(fileURLToPath(new URL('../src/', import.meta.url)))

/** Bottom to top. */
const LAYERS: readonly (readonly string[])[] = [
  ['submission.ts', 'transient-retry.ts', 'write-guard.ts'],
  ['turn-queue.ts', 'ask-expiry.ts'],
  ['worker.ts'],
  ['index.ts'],
]

function layerOf(file: string): number {
  const index = LAYERS.findIndex((layer) => layer.includes(file))
  if (index < 0) throw new Error(`${file} is in no layer; add it to the README and this test`)
  return index
}

describe('worker layers (packages/worker/README.md)', () => {
  it('every import of packages/worker/src resolves to a source file', () => {
    expect(unresolvedImports(graph)).toEqual([])
  })

  it('no module imports from a layer above its own', () => {
    expect(upwardImports(graph, layerOf)).toEqual([])
  })

  it('the import graph of packages/worker/src has no cycle', () => {
    expect(findCycle(graph)).toBeUndefined()
  })
})
