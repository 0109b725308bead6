import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { findCycle, importGraph, unresolvedImports, upwardImports } from '../../../test/support/layers.js'

/**
 * The layer rule of packages/mcp/README.md, checked on the source: the shared content mapping
 * at the root, the server (server/) and the client (client/) above it side by side — neither
 * imports the other — and index.ts on top; no cycle.
 */
const graph = importGraph(fileURLToPath(new URL('../src/', import.meta.url)))

const SIDES = ['server', 'client'] as const

function layerOf(file: string): number {
  const [head, ...rest] = file.split('/')
  if (rest.length === 0) return head === 'index.ts' ? 2 : 0
  if (!SIDES.includes(head as (typeof SIDES)[number]))
    throw new Error(`${file} is in no layer; add its folder to the README and this test`)
  return 1
}

describe('mcp layers (packages/mcp/README.md)', () => {
  it('every import of packages/mcp/src resolves to a source file', () => {
    expect(unresolvedImports(graph)).toEqual([])
  })

  it('no module imports from a layer above its own, and server/ and client/ never import each other', () => {
    const crossesSides = (from: string, to: string) =>
      SIDES.some((side) => from.startsWith(`${side}/`)) &&
      SIDES.some((side) => to.startsWith(`${side}/`)) &&
      from.split('/')[0] !== to.split('/')[0]
    expect(upwardImports(graph, layerOf, crossesSides)).toEqual([])
  })

  it('the import graph of packages/mcp/src has no cycle', () => {
    expect(findCycle(graph)).toBeUndefined()
  })
})
