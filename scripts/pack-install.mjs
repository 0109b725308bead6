#!/usr/bin/env node
/**
 * The pack-and-install check: packs every package from this checkout (each builds on
 * `prepack`), installs the tarballs into fresh projects outside the repo (no workspace links),
 * and there runs the README's quick-start as written, type-checks it with `skipLibCheck: false`,
 * loads every package with require(), and runs `npx tooltx demo` and `npx tooltx replay <id>`,
 * then starts `tooltx view <id>` and fetches its page, the page's script and the session.
 * It also times the install of `@tooltx/core`, `@tooltx/agent` and `tooltx` alone, prints their
 * size and the heaviest packages of the CLI's install, and fails when that install is over
 * `CLI_INSTALL_BOUND_MB` or holds a package that builds natively (W1.7). The demo runs without
 * the optional tokenizer, so its Code Mode comparison prints estimates (K3.23). On a Node without
 * `node:sqlite` (before 22.13) the demo, replay and view run on the CLI's JSONL default store,
 * with nothing installed beside the tarballs (K3.21). Exits non-zero on the first failure, naming
 * the step.
 *
 * `--keep` leaves the temporary folder in place and prints its path.
 */
import { execFileSync, spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const repo = fileURLToPath(new URL('..', import.meta.url))
const keep = process.argv.includes('--keep')
const packages = ['core', 'session', 'sandbox', 'agent', 'mcp', 'worker', 'cli']
/** What each measured install needs besides itself: the internal packages it depends on. */
const closure = {
  '@tooltx/core': ['core'],
  '@tooltx/agent': ['core', 'session', 'agent'],
  tooltx: packages,
}
/**
 * The most the CLI's `node_modules` may weigh, in MB (W1.7). It was 95.4 MB on Node 20 with the
 * two provider SDKs (32.3 MB; the adapters now speak HTTP themselves, L12.4) and the tokenizer
 * (22.4 MB; now an optional peer, K3.23); the MCP packages with zod are most of what is left.
 * packages/cli/README.md says what each dependency earns.
 */
const CLI_INSTALL_BOUND_MB = 60
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'
const work = mkdtempSync(path.join(os.tmpdir(), 'tooltx-pack-'))

/** Runs a command, returning its stdout; on failure throws with the step name and its output. */
function run(step, command, args, cwd, env = {}) {
  try {
    return execFileSync(command, args, {
      cwd,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false', ...env },
      maxBuffer: 64 * 1024 * 1024,
    })
  } catch (error) {
    throw new Error(`pack-install: ${step} failed\n${error.stdout ?? ''}${error.stderr ?? error.message}`)
  }
}

/** Total size in bytes of a folder tree (files only, links not followed). */
function sizeOf(dir) {
  let total = 0
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) total += sizeOf(full)
    else if (entry.isFile()) total += statSync(full).size
  }
  return total
}

/** Every package folder under `nodeModules` (scoped ones and nested `node_modules` too). */
function packageDirs(nodeModules) {
  const dirs = []
  for (const entry of readdirSync(nodeModules, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name.startsWith('.')) continue
    const full = path.join(nodeModules, entry.name)
    const inner = entry.name.startsWith('@')
      ? readdirSync(full, { withFileTypes: true })
          .filter((scoped) => scoped.isDirectory())
          .map((scoped) => path.join(full, scoped.name))
      : [full]
    for (const dir of inner) {
      dirs.push({ dir, top: true })
      const nested = path.join(dir, 'node_modules')
      if (statSync(nested, { throwIfNoEntry: false })?.isDirectory()) {
        dirs.push(...packageDirs(nested).map(({ dir }) => ({ dir, top: false })))
      }
    }
  }
  return dirs
}

/** The packages under `nodeModules` that would compile or run something on install: a `binding.gyp` or an install script. */
function nativeBuilds(nodeModules) {
  return packageDirs(nodeModules)
    .map(({ dir }) => dir)
    .filter((dir) => {
      const manifest = path.join(dir, 'package.json')
      if (!statSync(manifest, { throwIfNoEntry: false })?.isFile()) return false
      const { scripts = {}, gypfile } = JSON.parse(readFileSync(manifest, 'utf8'))
      const scripted = ['preinstall', 'install', 'postinstall'].some((name) => name in scripts)
      return (
        scripted ||
        gypfile === true ||
        statSync(path.join(dir, 'binding.gyp'), { throwIfNoEntry: false }) !== undefined
      )
    })
}

/** The `count` heaviest top-level packages of `nodeModules` (with what they nest), as `name size` lines. */
function heaviest(nodeModules, count) {
  return packageDirs(nodeModules)
    .filter(({ top }) => top)
    .map(({ dir }) => ({ name: path.relative(nodeModules, dir), bytes: sizeOf(dir) }))
    .sort((x, y) => y.bytes - x.bytes)
    .slice(0, count)
    .map(({ name, bytes }) => `${name} ${(bytes / 1e6).toFixed(1)} MB`)
}

/** A fresh npm project in `work/<name>` with the given tarballs installed; returns its path and time. */
function project(name, tarballs) {
  const dir = path.join(work, name)
  mkdirSync(dir)
  writeFileSync(
    path.join(dir, 'package.json'),
    `${JSON.stringify({ name, private: true, type: 'module' })}\n`,
  )
  const started = performance.now()
  run(`npm install in ${name}`, npm, ['install', '--no-package-lock', ...tarballs], dir)
  return { dir, seconds: (performance.now() - started) / 1000 }
}

/**
 * Starts the installed `tooltx view <id>` in `dir`, fetches the page it prints, the script the page
 * loads and the session's entries, and stops it; returns what it checked.
 */
async function viewCheck(dir, id) {
  const bin = path.join(dir, 'node_modules', 'tooltx', 'bin', 'tooltx.js')
  const child = spawn(process.execPath, [bin, 'view', id], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] })
  let printed = ''
  child.stdout.on('data', (chunk) => {
    printed += chunk
  })
  child.stderr.on('data', (chunk) => {
    printed += chunk
  })
  try {
    const url = await new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`pack-install: tooltx view printed no URL\n${printed}`)),
        30_000,
      )
      child.stdout.on('data', () => {
        const match = /at (http:\/\/127\.0\.0\.1:\d+\/session\/\S+)/.exec(printed)
        if (match !== null) {
          clearTimeout(timer)
          resolve(match[1])
        }
      })
      child.on('exit', () => reject(new Error(`pack-install: tooltx view exited\n${printed}`)))
    })
    const html = await (await fetch(url)).text()
    const script = /<script type="module" crossorigin src="([^"]+)"/.exec(html)?.[1]
    if (script === undefined) throw new Error(`pack-install: the viewer's page loads no script\n${html}`)
    const js = await fetch(new URL(script, url))
    if (!js.ok || !(js.headers.get('content-type') ?? '').startsWith('text/javascript')) {
      throw new Error(`pack-install: the viewer's script ${script} answered ${js.status}`)
    }
    const session = await (await fetch(new URL(`/api/sessions/${id}`, url))).json()
    const calls = session.entries.filter((entry) => entry.kind === 'call').length
    if (calls === 0) throw new Error(`pack-install: the viewer shows no calls of ${id}`)
    return `${url} served the page, ${script} and ${calls} calls`
  } finally {
    child.kill('SIGINT')
  }
}

/** The first ```ts block of the README: the quick-start, which must run as written. */
function quickStart() {
  const readme = readFileSync(path.join(repo, 'README.md'), 'utf8')
  const match = /```ts\n([\s\S]*?)```/.exec(readme)
  if (match === null) throw new Error('pack-install: README.md has no ```ts block')
  return match[1]
}

try {
  const tarballDir = path.join(work, 'tarballs')
  mkdirSync(tarballDir)
  const tarball = {}
  for (const name of packages) {
    const out = run(
      `npm pack of packages/${name}`,
      npm,
      ['pack', '--silent', '--pack-destination', tarballDir],
      path.join(repo, 'packages', name),
    )
    tarball[name] = path.join(tarballDir, out.trim().split('\n').pop())
  }

  const sizes = []
  let cli
  for (const [pkg, needs] of Object.entries(closure)) {
    const { dir, seconds } = project(
      pkg.replace('@tooltx/', 'only-'),
      needs.map((n) => tarball[n]),
    )
    const nodeModules = path.join(dir, 'node_modules')
    const mb = sizeOf(nodeModules) / 1e6
    sizes.push(`${pkg}: ${seconds.toFixed(1)} s, ${mb.toFixed(1)} MB`)
    if (pkg === 'tooltx') cli = { mb, nodeModules }
  }
  const heavy = heaviest(cli.nodeModules, 8)
  if (cli.mb > CLI_INSTALL_BOUND_MB) {
    throw new Error(
      `pack-install: the CLI installs ${cli.mb.toFixed(1)} MB, over the bound of ${CLI_INSTALL_BOUND_MB} MB; heaviest: ${heavy.join(', ')}`,
    )
  }
  const native = nativeBuilds(cli.nodeModules)
  if (native.length > 0) {
    const names = native.map((dir) => path.relative(cli.nodeModules, dir)).join(', ')
    throw new Error(`pack-install: the CLI's install builds natively: ${names}`)
  }

  // Nothing beside the tarballs: on a Node without node:sqlite the CLI keeps sessions as JSONL.
  const { dir } = project('user', [
    ...packages.map((n) => tarball[n]),
    'typescript@~5.9.3',
    '@types/node@^20',
    // The quick-start's schema library, as its install line says (`npm install @tooltx/core zod`).
    'zod@^4.6.7',
  ])
  writeFileSync(path.join(dir, 'quickstart.ts'), quickStart())
  writeFileSync(
    path.join(dir, 'tsconfig.json'),
    `${JSON.stringify({ compilerOptions: { strict: true, skipLibCheck: false, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', types: ['node'], noEmit: false, outDir: 'out' }, files: ['quickstart.ts'] })}\n`,
  )
  run('type check and build of the quick-start (skipLibCheck: false)', 'npx', ['tsc', '-p', '.'], dir)
  const quick = run('the quick-start', process.execPath, ['out/quickstart.js'], dir)
  for (const name of packages) {
    const id = name === 'cli' ? 'tooltx' : `@tooltx/${name}`
    run(`require('${id}')`, process.execPath, ['-e', `require(${JSON.stringify(id)})`], dir)
  }
  const demo = run('npx tooltx demo', 'npx', ['--no-install', 'tooltx', 'demo', '--fast'], dir)
  // Installed without the optional tokenizer, the comparison counts with the estimate and says so (K3.23).
  if (!demo.includes('npm install js-tiktoken gives exact o200k_base counts')) {
    throw new Error(
      `pack-install: without js-tiktoken the demo does not mark its counts as estimates\n${demo}`,
    )
  }
  const id = /Session saved as (\S+) /.exec(demo)?.[1]
  if (id === undefined) throw new Error(`pack-install: the demo printed no session id\n${demo}`)
  const replay = run('npx tooltx replay', 'npx', ['--no-install', 'tooltx', 'replay', id], dir)
  if (!replay.includes(id)) throw new Error(`pack-install: the replay does not name ${id}\n${replay}`)
  const viewed = await viewCheck(dir, id)

  process.stdout.write(
    [
      `pack-install on Node ${process.version}: every step passed`,
      `  quick-start printed: ${quick.replace(/\s+/g, ' ').trim().slice(0, 100)}`,
      `  demo session ${id} replayed (${replay.split('\n').length} lines)`,
      `  tooltx view: ${viewed}`,
      '  install from the tarballs (warm npm cache), time and node_modules size:',
      ...sizes.map((line) => `    ${line}`),
      `  the CLI's install: at most ${CLI_INSTALL_BOUND_MB} MB, no native build; heaviest packages:`,
      ...heavy.map((line) => `    ${line}`),
      '',
    ].join('\n'),
  )
} finally {
  if (keep) process.stdout.write(`pack-install: kept ${work}\n`)
  else rmSync(work, { recursive: true, force: true })
}
