import { existsSync, readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import * as publicApi from '../src/index.js'
import * as internalApi from '../src/internal.js'

/**
 * The two entry points of packages/core/README.md ("Where the code lives"): `@tooltx/core` for
 * users and `@tooltx/core/internal` for the sibling packages. A name has one of them, and the
 * internal one holds only what some other package (or the bench) imports from it.
 */
const repo = fileURLToPath(new URL('../../../', import.meta.url))
const FROM_INTERNAL = /import\s+(?:type\s+)?\{([^}]*)\}\s*from\s*'@tooltx\/core\/internal'/g

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory())
      return entry.name === 'node_modules' || entry.name === 'dist' ? [] : sources(full)
    return /\.tsx?$/.test(entry.name) ? [full] : []
  })
}

/** Every name the other packages' sources and tests, and the bench, import from the internal entry. */
function importedFromInternal(): string[] {
  const packages = readdirSync(path.join(repo, 'packages')).filter((name) => name !== 'core')
  const dirs = packages.flatMap((name) =>
    ['src', 'test'].map((part) => path.join(repo, 'packages', name, part)),
  )
  const files = [
    ...dirs.filter((dir) => existsSync(dir)).flatMap(sources),
    ...sources(path.join(repo, 'bench')),
  ]
  const names = new Set<string>()
  for (const file of files) {
    for (const match of readFileSync(file, 'utf8').matchAll(FROM_INTERNAL)) {
      for (const spec of match[1]!.split(',')) {
        const name = spec
          .trim()
          .replace(/^type\s+/, '')
          .split(/\s+as\s+/)[0]!
        if (name !== '') names.add(name)
      }
    }
  }
  return [...names].sort()
}

describe('core entry points (packages/core/README.md)', () => {
  it('no name is exported by both @tooltx/core and @tooltx/core/internal', () => {
    expect(Object.keys(internalApi).filter((name) => name in publicApi)).toEqual([])
  })

  it('@tooltx/core/internal exports exactly what other packages and the bench import from it', () => {
    expect(Object.keys(internalApi).sort()).toEqual(importedFromInternal())
  })
})
