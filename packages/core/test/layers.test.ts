import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

/**
 * The layer rule of packages/core/README.md, checked on the source: every relative import
 * (type-only ones included) goes to the same layer or one below, Code Mode imports nothing
 * from pipeline/ or wrappers/, and the import graph has no cycle.
 */
const src = fileURLToPath(new URL('../src/', import.meta.url))

/** Bottom to top; a root file not listed under `top` is a foundation file. */
const FOLDERS = ['schema', 'tool', 'registry', 'pipeline', 'wrappers', 'code-mode'] as const
const TOP = new Set(['create-runtime.ts', 'runtime-scope.ts', 'index.ts'])

function layerOf(file: string): number {
  const [head, ...rest] = file.split('/')
  if (rest.length === 0) return TOP.has(head!) ? FOLDERS.length + 1 : 0
  const index = FOLDERS.indexOf(head as (typeof FOLDERS)[number])
  if (index < 0) throw new Error(`${file} is in no layer; add its folder to the README and this test`)
  return index + 1
}

function sourceFiles(dir: string, prefix = ''): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(path.join(dir, entry.name), `${prefix}${entry.name}/`)
      : entry.name.endsWith('.ts')
        ? [`${prefix}${entry.name}`]
        : [],
  )
}

const IMPORT = /(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g

function importsOf(file: string): string[] {
  const text = readFileSync(path.join(src, file), 'utf8')
  return [...text.matchAll(IMPORT)].map((m) =>
    path.posix.normalize(path.posix.join(path.posix.dirname(file), m[1]!.replace(/\.js$/, '.ts'))),
  )
}

const files = sourceFiles(src)
const graph = new Map(files.map((file) => [file, importsOf(file)]))

/** One cycle of `graph` as a path, or `undefined` (iterative depth-first search). */
function findCycle(): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>()
  for (const start of files) {
    if (state.has(start)) continue
    const stack: { file: string; next: number }[] = [{ file: start, next: 0 }]
    state.set(start, 'open')
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!
      const targets = graph.get(top.file) ?? []
      if (top.next === targets.length) {
        state.set(top.file, 'done')
        stack.pop()
        continue
      }
      const target = targets[top.next++]!
      if (state.get(target) === 'open') {
        const from = stack.findIndex((frame) => frame.file === target)
        return [...stack.slice(from).map((frame) => frame.file), target]
      }
      if (!state.has(target)) {
        state.set(target, 'open')
        stack.push({ file: target, next: 0 })
      }
    }
  }
  return undefined
}

describe('core layers (packages/core/README.md)', () => {
  it('every import of packages/core/src resolves to a source file', () => {
    const missing = [...graph].flatMap(([file, targets]) =>
      targets.filter((t) => !graph.has(t)).map((t) => `${file} -> ${t}`),
    )
    expect(missing).toEqual([])
  })

  it('no module imports from a layer above its own, and code-mode/ imports nothing from pipeline/ or wrappers/', () => {
    const upward = [...graph].flatMap(([file, targets]) =>
      targets
        .filter(
          (t) =>
            layerOf(t) > layerOf(file) ||
            (file.startsWith('code-mode/') && (t.startsWith('pipeline/') || t.startsWith('wrappers/'))),
        )
        .map((t) => `${file} -> ${t}`),
    )
    expect(upward).toEqual([])
  })

  it('the import graph of packages/core/src has no cycle', () => {
    expect(findCycle()).toBeUndefined()
  })

  it('the cycle finder reports a cycle it is given', () => {
    graph.set('a.ts', ['b.ts'])
    graph.set('b.ts', ['a.ts'])
    files.push('a.ts', 'b.ts')
    try {
      expect(findCycle()).toEqual(['a.ts', 'b.ts', 'a.ts'])
    } finally {
      graph.delete('a.ts')
      graph.delete('b.ts')
      files.splice(files.length - 2, 2)
    }
  })
})
