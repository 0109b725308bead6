import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { findCycle, importGraph, unresolvedImports, upwardImports } from '../../../test/support/layers.js'

/**
 * The layer rule of packages/session/README.md, checked on the source: every relative import
 * (type-only ones included) goes to the same layer or one below, no store backend imports
 * another (PostgreSQL code never imports SQLite code, and the reverse), and the import graph
 * has no cycle.
 */
const graph = importGraph(fileURLToPath(new URL('../src/', import.meta.url)))

/** The store backends, each a folder of `stores/` that imports no other. */
const BACKENDS = ['file', 'sqlite', 'postgres'] as const

/** log/ 1, the shared files of stores/ 2, a backend folder of stores/ 3, the root files 4. */
function layerOf(file: string): number {
  const parts = file.split('/')
  if (parts.length === 1) return 4
  if (parts[0] === 'log' && parts.length === 2) return 1
  if (parts[0] === 'stores' && parts.length === 2) return 2
  if (parts[0] === 'stores' && parts.length === 3 && BACKENDS.includes(parts[1] as never)) return 3
  throw new Error(`${file} is in no layer; add its folder to the README and this test`)
}

/** The backend folder `file` belongs to, or `undefined` outside one. */
const backendOf = (file: string): string | undefined =>
  file.startsWith('stores/') && file.split('/').length === 3 ? file.split('/')[1] : undefined

/** True when `from` and `to` are in two different backend folders. */
function crossesBackends(from: string, to: string): boolean {
  const [a, b] = [backendOf(from), backendOf(to)]
  return a !== undefined && b !== undefined && a !== b
}

describe('session layers (packages/session/README.md)', () => {
  it('every import of packages/session/src resolves to a source file', () => {
    expect(unresolvedImports(graph)).toEqual([])
  })

  it('no module imports from a layer above its own, and no store backend imports another (PostgreSQL never SQLite)', () => {
    expect(upwardImports(graph, layerOf, crossesBackends)).toEqual([])
  })

  it('the backend rule reports a PostgreSQL file importing a SQLite one, and log/ importing stores/', () => {
    const wrong = {
      files: ['log/a.ts', 'stores/store.ts', 'stores/postgres/p.ts', 'stores/sqlite/s.ts'],
      edges: new Map([
        ['log/a.ts', ['stores/store.ts']],
        ['stores/store.ts', []],
        ['stores/postgres/p.ts', ['stores/sqlite/s.ts', 'stores/store.ts']],
        ['stores/sqlite/s.ts', []],
      ]),
    }
    expect(upwardImports(wrong, layerOf, crossesBackends)).toEqual([
      'log/a.ts -> stores/store.ts',
      'stores/postgres/p.ts -> stores/sqlite/s.ts',
    ])
  })

  it('the import graph of packages/session/src has no cycle', () => {
    expect(findCycle(graph)).toBeUndefined()
  })
})
