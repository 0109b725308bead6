import { readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { findCycle, importGraph, unresolvedImports, upwardImports } from '../../../test/support/layers.js'

/**
 * The layer rule of packages/agent/README.md, checked on the source: every relative import
 * (type-only ones included) goes to the same layer or one below, the import graph has no
 * cycle, and the `Journal` is the one writer of the session log.
 */
const src = fileURLToPath(new URL('../src/', import.meta.url))
const graph = importGraph(src)

/** Bottom to top; a root file is in the top layer. */
const FOLDERS = ['base', 'model', 'context', 'approvals', 'recovery', 'loop'] as const

function layerOf(file: string): number {
  const [head, ...rest] = file.split('/')
  if (rest.length === 0) return FOLDERS.length
  const index = FOLDERS.indexOf(head as (typeof FOLDERS)[number])
  if (index < 0) throw new Error(`${file} is in no layer; add its folder to the README and this test`)
  return index
}

/** The files of packages/agent/src, other than the journal, that call a session's append. */
function appendersBesidesJournal(): string[] {
  return graph.files.filter(
    (file) =>
      file !== 'base/journal.ts' && /\.append(Batch)?\(/.test(readFileSync(path.join(src, file), 'utf8')),
  )
}

describe('agent layers (packages/agent/README.md)', () => {
  it('every import of packages/agent/src resolves to a source file', () => {
    expect(unresolvedImports(graph)).toEqual([])
  })

  it('no module imports from a layer above its own', () => {
    expect(upwardImports(graph, layerOf)).toEqual([])
  })

  it('the import graph of packages/agent/src has no cycle', () => {
    expect(findCycle(graph)).toBeUndefined()
  })

  it('one writer: no file of packages/agent/src but base/journal.ts calls .append( or .appendBatch(', () => {
    expect(graph.files).toContain('base/journal.ts')
    expect(appendersBesidesJournal()).toEqual([])
  })
})
