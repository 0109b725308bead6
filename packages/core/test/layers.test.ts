import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { findCycle, importGraph, unresolvedImports, upwardImports } from '../../../test/support/layers.js'

/**
 * The layer rule of packages/core/README.md, checked on the source: every relative import
 * (type-only ones included) goes to the same layer or one below, Code Mode imports nothing
 * from pipeline/ or wrappers/, and the import graph has no cycle.
 */
const graph = importGraph(fileURLToPath(new URL('../src/', import.meta.url)))

/** The folders bottom to top; the root files (composition root, entry points) sit above them all. */
const FOLDERS = [
  'foundation',
  'contract',
  'provenance',
  'schema',
  'tool',
  'registry',
  'pipeline',
  'wrappers',
  'code-mode',
] as const
const ROOT = new Set(['create-runtime.ts', 'runtime-scope.ts', 'index.ts', 'internal.ts'])

function layerOf(file: string): number {
  const [head, ...rest] = file.split('/')
  if (rest.length === 0) {
    if (!ROOT.has(head!))
      throw new Error(`${file} is in no layer; move it into a folder or list it as a root file`)
    return FOLDERS.length
  }
  const index = FOLDERS.indexOf(head as (typeof FOLDERS)[number])
  if (index < 0) throw new Error(`${file} is in no layer; add its folder to the README and this test`)
  return index
}

describe('core layers (packages/core/README.md)', () => {
  it('every import of packages/core/src resolves to a source file', () => {
    expect(unresolvedImports(graph)).toEqual([])
  })

  it('no module imports from a layer above its own, and code-mode/ imports nothing from pipeline/ or wrappers/', () => {
    const codeModeReachesUp = (from: string, to: string) =>
      from.startsWith('code-mode/') && (to.startsWith('pipeline/') || to.startsWith('wrappers/'))
    expect(upwardImports(graph, layerOf, codeModeReachesUp)).toEqual([])
  })

  it('the import graph of packages/core/src has no cycle', () => {
    expect(findCycle(graph)).toBeUndefined()
  })

  it('the cycle finder reports a cycle it is given', () => {
    const cyclic = {
      files: ['a.ts', 'b.ts'],
      edges: new Map([
        ['a.ts', ['b.ts']],
        ['b.ts', ['a.ts']],
      ]),
    }
    expect(findCycle(cyclic)).toEqual(['a.ts', 'b.ts', 'a.ts'])
  })
})
