import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { findCycle, importGraph, unresolvedImports, upwardImports } from '../../../test/support/layers.js'

/**
 * The layer rule of packages/sandbox/README.md, checked on the source: the host thread and the
 * worker thread share only the message protocol and the output-budget rule, so neither side
 * imports the other; the guest prelude imports nothing (its source text runs inside QuickJS);
 * and the import graph has no cycle.
 */
const graph = importGraph(fileURLToPath(new URL('../src/', import.meta.url)))

const SHARED = new Set(['protocol.ts', 'output-budget.js'])
const WORKER = new Set(['sandbox-worker.js', 'guest-prelude.js', 'transpile.js'])
const HOST = new Set([
  'limits.ts',
  'compute-watch.ts',
  'worker-pool.ts',
  'program-run.ts',
  'quickjs-runtime.ts',
  'index.ts',
])

/** Shared 0, either thread's side 1, the entry point (host side) 2. */
function layerOf(file: string): number {
  if (file === 'index.ts') return 2
  if (SHARED.has(file)) return 0
  if (WORKER.has(file) || HOST.has(file)) return 1
  throw new Error(`${file} is in no layer; add it to the README and this test`)
}

const crossesThreads = (from: string, to: string) =>
  (HOST.has(from) && WORKER.has(to)) || (WORKER.has(from) && HOST.has(to)) || from === 'guest-prelude.js'

describe('sandbox layers (packages/sandbox/README.md)', () => {
  it('every import of packages/sandbox/src resolves to a source file', () => {
    expect(unresolvedImports(graph)).toEqual([])
  })

  it('the worker imports only its own side and the shared protocol, the host never the worker, the guest prelude nothing', () => {
    expect(graph.edges.get('sandbox-worker.js')).toContain('protocol.ts')
    expect(upwardImports(graph, layerOf, crossesThreads)).toEqual([])
  })

  it('the import graph of packages/sandbox/src has no cycle', () => {
    expect(findCycle(graph)).toBeUndefined()
  })
})
