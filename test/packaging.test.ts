import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'

const repo = fileURLToPath(new URL('..', import.meta.url))
const run = promisify(execFile)
const dirs = ['core', 'session', 'sandbox', 'agent', 'mcp', 'worker', 'cli', 'ai-sdk', 'otel']
/** Packages the root install links: @tooltx/ai-sdk installs on its own, like the bench (W1.5). */
const linked = dirs.filter((dir) => dir !== 'ai-sdk')
const manifest = (file: string) => JSON.parse(readFileSync(path.join(repo, file), 'utf8'))
const packageName = (dir: string): string => manifest(`packages/${dir}/package.json`).name

describe('W1: publishable packages', () => {
  it.each(dirs)('W1.1: packages/%s ships a complete, publishable manifest', (dir) => {
    const pkg = manifest(`packages/${dir}/package.json`)
    // The CLI also builds the viewer's page into dist/web (G5.1).
    expect(pkg.scripts.prepack).toBe(
      dir === 'cli' ? 'tsc -b && vite build --config web/vite.config.ts' : 'tsc -b',
    )
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

  it.each(linked)(
    'W1.3: npm pack of packages/%s ships the built entry, its sources, README and LICENSE, and no build info',
    async (dir) => {
      const { stdout } = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
        cwd: path.join(repo, 'packages', dir),
      })
      const files = (JSON.parse(stdout) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path)
      expect(files).toEqual(
        expect.arrayContaining([
          'dist/index.js',
          'dist/index.d.ts',
          'src/index.ts',
          'require.cjs',
          'README.md',
          'LICENSE',
          'package.json',
        ]),
      )
      expect(files.filter((f) => f.endsWith('.tsbuildinfo') || f.includes('/test/'))).toEqual([])
    },
  )

  it.each(linked)('W1.2: require() of packages/%s gives the ES module itself', async (dir) => {
    const name = packageName(dir)
    const script = `const m = require(${JSON.stringify(name)}); import(${JSON.stringify(name)}).then((e) => console.log(Object.keys(m).length > 0 && Object.keys(m).every((k) => m[k] === e[k])))`
    const { stdout } = await run(process.execPath, ['-e', script], { cwd: repo })
    expect(stdout.trim()).toBe('true')
  })

  it.each(linked)(
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
    for (const peer of ['ai', '@langchain/langgraph', '@langchain/core', '@openai/agents-core']) {
      expect(lock.packages[`node_modules/${peer}`]).toBeUndefined()
    }
    const benchLock = manifest('bench/package-lock.json')
    expect(benchLock.packages['node_modules/ai']).toBeDefined()
    expect(root.scripts.bench).toContain('npm ci --prefix bench')
  })

  it('W1.5: @tooltx/ai-sdk and AI SDK 7 stay out of the root install; the bridge has its own lock file', () => {
    const root = manifest('package.json')
    expect(root.workspaces).not.toContain('packages/ai-sdk')
    expect(root.scripts.build).not.toContain('packages/ai-sdk')
    const installed = Object.keys(manifest('package-lock.json').packages)
    expect(
      installed.filter((key) => /(^|\/)node_modules\/(ai|@ai-sdk\/[^/]+|@tooltx\/ai-sdk)$/.test(key)),
    ).toEqual([])
    const bridge = manifest('packages/ai-sdk/package.json')
    expect(Object.keys(bridge.peerDependencies).sort()).toEqual([
      '@ai-sdk/provider',
      '@tooltx/agent',
      '@tooltx/core',
      'ai',
    ])
    expect(bridge.dependencies).toBeUndefined()
    const bridgeLock = manifest('packages/ai-sdk/package-lock.json')
    expect(bridgeLock.packages['node_modules/ai']).toBeDefined()
    expect(bridgeLock.packages['node_modules/@tooltx/core']).toBeUndefined()
    expect(root.scripts.test).toMatch(/&& npm run test:ai-sdk$/)
  })

  it('W1.7: every dependency of the CLI is named in its README with what it earns, and the tokenizer loads one encoding', () => {
    const readme = readFileSync(path.join(repo, 'packages/cli/README.md'), 'utf8')
    const section = readme.slice(readme.indexOf('\n## Dependencies\n'))
    expect(section.length).toBeLessThan(readme.length)
    const own = Object.keys(manifest('packages/cli/package.json').dependencies).filter(
      (name) => !name.startsWith('@tooltx/'),
    )
    expect(own.filter((name) => !section.includes(`\`${name}\``))).toEqual([])
    const source = readFileSync(path.join(repo, 'packages/cli/src/token-counting.ts'), 'utf8')
    expect([...source.matchAll(/load\('(js-tiktoken[^']*)'\)/g)].map((m) => m[1])).toEqual([
      'js-tiktoken/lite',
      'js-tiktoken/ranks/o200k_base',
    ])
  })

  it('W1.8: no package or lockfile of the workspace names a provider SDK, and the tokenizer is an optional peer of the CLI only', () => {
    const sdks = ['openai', '@anthropic-ai/sdk']
    for (const dir of dirs) {
      const pkg = manifest(`packages/${dir}/package.json`)
      const named = Object.keys({ ...pkg.dependencies, ...pkg.peerDependencies, ...pkg.devDependencies })
      expect(
        named.filter((name) => sdks.includes(name)),
        dir,
      ).toEqual([])
    }
    const lock = manifest('package-lock.json')
    expect(sdks.filter((name) => `node_modules/${name}` in lock.packages)).toEqual([])
    expect(manifest('packages/agent/package.json').dependencies).toHaveProperty('eventsource-parser')
    const cli = manifest('packages/cli/package.json')
    expect(cli.dependencies).not.toHaveProperty('js-tiktoken')
    expect(cli.peerDependencies).toEqual({ 'js-tiktoken': expect.any(String) })
    expect(cli.peerDependenciesMeta).toEqual({ 'js-tiktoken': { optional: true } })
    expect(cli.devDependencies).toHaveProperty('js-tiktoken')
  })
})
