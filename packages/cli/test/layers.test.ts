import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { findCycle, importGraph, unresolvedImports, upwardImports } from '../../../test/support/layers.js'

/**
 * The layer rule of packages/cli/README.md, checked on the source: every relative import
 * (type-only ones included) goes to the same layer or one below, and the import graph has no
 * cycle. The web page (`web/src`) is checked on its own: it reaches into `src/` only for types
 * of display/ and viewer/, and for the values of display/ modules that import nothing.
 */
const src = fileURLToPath(new URL('../src/', import.meta.url))
const web = fileURLToPath(new URL('../web/src/', import.meta.url))
const graph = importGraph(src)
const page = importGraph(web)

/** Bottom to top: `root` is every file directly in src/ but those of `TOP`, which sit on top. */
const LAYERS = ['display', 'tools', 'root', 'viewer', 'commands', 'top'] as const
const TOP = new Set(['cli.ts', 'bin.ts', 'index.ts'])

function layerOf(file: string): number {
  const [head, ...rest] = file.split('/')
  const folder = rest.length > 0 ? head : TOP.has(head!) ? 'top' : 'root'
  const index = LAYERS.indexOf(folder as (typeof LAYERS)[number])
  if (index < 0) throw new Error(`${file} is in no layer; add its folder to the README and this test`)
  return index
}

describe('cli layers (packages/cli/README.md)', () => {
  it('every import of packages/cli/src resolves to a source file', () => {
    expect(unresolvedImports(graph)).toEqual([])
  })

  it('no module imports from a layer above its own, and the flag helpers import no command', () => {
    const helperReachesCommand = (from: string, to: string) =>
      (from === 'commands/flags.ts' || from === 'commands/command.ts') &&
      to.startsWith('commands/') &&
      to !== 'commands/flags.ts'
    expect(upwardImports(graph, layerOf, helperReachesCommand)).toEqual([])
  })

  it('the import graph of packages/cli/src has no cycle', () => {
    expect(findCycle(graph)).toBeUndefined()
  })

  it('the web page imports only its own files, types of display/ and viewer/, and self-contained display/ modules, without a cycle', () => {
    const stylesheet = (target: string) => target.endsWith('.css') && existsSync(path.join(web, target))
    const outside = unresolvedImports(page).filter((edge) => {
      const target = edge.split(' -> ')[1]!
      return !/^\.\.\/\.\.\/src\/(display|viewer)\/[\w-]+\.ts$/.test(target) && !stylesheet(target)
    })
    expect(outside).toEqual([])
    // A value import (its bindings bundled into the page) may only take a module of display/ that
    // imports nothing itself, so no Node code reaches the browser (K5.17's rule runs there).
    const valueImports = page.files.flatMap((file) =>
      [
        ...readFileSync(path.join(web, file), 'utf8').matchAll(
          /^import (?!type )[^']*'\.\.\/\.\.\/src\/([^']+)\.js'/gm,
        ),
      ].flatMap(([, target]) => {
        const source = readFileSync(path.join(src, `${target}.ts`), 'utf8')
        return target!.startsWith('display/') && !/^import /m.test(source) ? [] : [`${file}: ${target}`]
      }),
    )
    expect(valueImports).toEqual([])
    expect(findCycle(page)).toBeUndefined()
  })
})
