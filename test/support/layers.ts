import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'

/**
 * The import graph of one package's `src/`, for the layering test every package has: each
 * relative import (type-only ones included) as a path relative to `src/`; a `.js` specifier
 * names the `.ts` or `.tsx` file it compiles from, or a plain `.js` source (the sandbox's worker).
 */
export interface ImportGraph {
  readonly files: string[]
  readonly edges: Map<string, string[]>
}

const IMPORT = /(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g

function sourceFiles(dir: string, prefix = ''): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(path.join(dir, entry.name), `${prefix}${entry.name}/`)
      : /\.(tsx?|js)$/.test(entry.name) && !entry.name.endsWith('.d.ts')
        ? [`${prefix}${entry.name}`]
        : [],
  )
}

/** Reads every `.ts`, `.tsx` and `.js` file under `src` and its relative imports. */
export function importGraph(src: string): ImportGraph {
  const files = sourceFiles(src)
  const known = new Set(files)
  const resolve = (target: string) => {
    const ts = target.replace(/\.js$/, '.ts')
    return [ts, `${ts}x`, target].find((file) => known.has(file)) ?? ts
  }
  const edges = new Map<string, string[]>()
  for (const file of files) {
    const text = readFileSync(path.join(src, file), 'utf8')
    edges.set(
      file,
      [...text.matchAll(IMPORT)].map((m) =>
        resolve(path.posix.normalize(path.posix.join(path.posix.dirname(file), m[1]!))),
      ),
    )
  }
  return { files, edges }
}

/** Imports that name no file of the graph, as `from -> to`. */
export function unresolvedImports(graph: ImportGraph): string[] {
  return [...graph.edges].flatMap(([file, targets]) =>
    targets.filter((t) => !graph.edges.has(t)).map((t) => `${file} -> ${t}`),
  )
}

/**
 * Imports that break the layer rule, as `from -> to`: a target in a higher layer than its
 * importer, or any edge `forbidden` names. `layerOf` throws for a file in no layer.
 */
export function upwardImports(
  graph: ImportGraph,
  layerOf: (file: string) => number,
  forbidden: (from: string, to: string) => boolean = () => false,
): string[] {
  return [...graph.edges].flatMap(([file, targets]) =>
    targets
      .filter((t) => graph.edges.has(t) && (layerOf(t) > layerOf(file) || forbidden(file, t)))
      .map((t) => `${file} -> ${t}`),
  )
}

/** One cycle of the graph as a path that ends where it starts, or `undefined` (iterative DFS). */
export function findCycle(graph: ImportGraph): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>()
  for (const start of graph.files) {
    if (state.has(start)) continue
    const stack: { file: string; next: number }[] = [{ file: start, next: 0 }]
    state.set(start, 'open')
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!
      const targets = graph.edges.get(top.file) ?? []
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
      if (!state.has(target) && graph.edges.has(target)) {
        state.set(target, 'open')
        stack.push({ file: target, next: 0 })
      }
    }
  }
  return undefined
}
