import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'

const repo = fileURLToPath(new URL('..', import.meta.url))
const run = promisify(execFile)
const dirs = ['core', 'session', 'sandbox', 'agent', 'cli', 'ai-sdk', 'otel']
/** Packages that load only on Node.js 22 or later (Z2.8). */
const needsNode22 = new Set(['ai-sdk'])
const modernNode = Number.parseInt(process.versions.node, 10) >= 22
const manifest = (file: string) => JSON.parse(readFileSync(path.join(repo, file), 'utf8'))
const packageName = (dir: string): string => manifest(`packages/${dir}/package.json`).name

describe('W1: publishable packages', () => {
  it.each(dirs)('W1.1: packages/%s ships a complete, publishable manifest', (dir) => {
    const pkg = manifest(`packages/${dir}/package.json`)
    expect(pkg.scripts.prepack).toBe('tsc -b')
    expect(pkg.files).toEqual(
      expect.arrayContaining(['dist', '!dist/.tsbuildinfo', 'src', 'README.md', 'LICENSE']),
    )
    expect(pkg.exports['.']).toEqual({
      types: './dist/index.d.ts',
      import: './dist/index.js',
      require: './require.cjs',
    })
    expect(pkg.types).toBe('./dist/index.d.ts')
    expect(pkg.license).toBe('MIT')
    expect(pkg.repository).toMatchObject({ type: 'git', directory: `packages/${dir}` })
    expect(pkg.engines).toEqual({ node: '>=20' })
    expect(pkg.publishConfig).toEqual({ access: 'public' })
    for (const [name, range] of Object.entries<string>(pkg.dependencies ?? {})) {
      if (name.startsWith('@tooltx/')) expect(range).toBe('^0.1.0')
    }
    expect(readFileSync(path.join(repo, 'packages', dir, 'LICENSE'), 'utf8')).toBe(
      readFileSync(path.join(repo, 'LICENSE'), 'utf8'),
    )
  })

  // On an older Node.js, @tooltx/ai-sdk refuses to load at all; Z2.8 proves that message.
  const loadable = dirs.filter((dir) => modernNode || !needsNode22.has(dir))
  it.each(loadable)('W1.2: require() of packages/%s gives the ES module itself', async (dir) => {
    const name = packageName(dir)
    const script = `const m = require(${JSON.stringify(name)}); import(${JSON.stringify(name)}).then((e) => console.log(Object.keys(m).length > 0 && Object.keys(m).every((k) => m[k] === e[k])))`
    const { stdout } = await run(process.execPath, ['-e', script], { cwd: repo })
    expect(stdout.trim()).toBe('true')
  })

  it.each(dirs)(
    'W1.2: where require() cannot load ES modules, packages/%s says how to import it',
    async (dir) => {
      const name = packageName(dir)
      const failure = await run(
        process.execPath,
        ['--no-experimental-require-module', '-e', `require('${name}')`],
        {
          cwd: repo,
        },
      ).catch((error: { stderr: string }) => error)
      expect((failure as { stderr: string }).stderr).toContain(
        `${name} is ESM-only: use \`import … from '${name}'\`, or \`await import('${name}')\` in CommonJS`,
      )
    },
  )

  it('W1.5: the root install holds no benchmark peer, and the bench has its own lock file', () => {
    const root = manifest('package.json')
    expect(root.workspaces).not.toContain('bench')
    const lock = manifest('package-lock.json')
    for (const peer of ['@langchain/langgraph', '@langchain/core', '@openai/agents-core']) {
      expect(lock.packages[`node_modules/${peer}`]).toBeUndefined()
    }
    // The only Node >= 22 packages are AI SDK 7's, which @tooltx/ai-sdk's tests need (Z2.8).
    const node22 = Object.entries<{ engines?: { node?: string } }>(lock.packages)
      .filter(([, entry]) => entry.engines?.node === '>=22')
      .map(([key]) => key.replace(/^.*node_modules\//, ''))
    expect(node22.every((name) => name === 'ai' || name.startsWith('@ai-sdk/'))).toBe(true)
    const benchLock = manifest('bench/package-lock.json')
    expect(benchLock.packages['node_modules/ai']).toBeDefined()
    expect(root.scripts.bench).toContain('npm ci --prefix bench')
  })
})
