#!/usr/bin/env node
/**
 * @tooltx/ai-sdk's own install and tests (`npm run test:ai-sdk`, the last step of `npm test`).
 * AI SDK 7 needs Node.js 22 or later, so the package installs from its own lock file, like the
 * bench, and the root install stays free of engine warnings on Node.js 20 (W1.5). On an older
 * Node.js this prints one skip line and exits 0; otherwise it runs `npm ci` in packages/ai-sdk
 * (legacy peer deps: the `@tooltx/*` peers are the workspace root's), builds the package,
 * type-checks its tests and runs them with its own vitest config. Exits non-zero on a failure.
 */
import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const repo = fileURLToPath(new URL('..', import.meta.url))
const major = Number.parseInt(process.versions.node, 10)

if (major < 22) {
  console.log('test:ai-sdk: skipped — @tooltx/ai-sdk needs Node >= 22 (AI SDK 7); CI runs it on Node 24')
  process.exit(0)
}

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'
const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx'
const steps = [
  [npm, ['ci', '--legacy-peer-deps', '--no-audit', '--no-fund', '--prefix', 'packages/ai-sdk']],
  [npx, ['tsc', '-b', 'packages/ai-sdk']],
  [npx, ['tsc', '-p', 'packages/ai-sdk/tsconfig.test.json']],
  [npx, ['vitest', 'run', '--config', 'packages/ai-sdk/vitest.config.ts']],
]
for (const [command, args] of steps) {
  try {
    execFileSync(command, args, { cwd: repo, stdio: 'inherit' })
  } catch {
    console.error(`test:ai-sdk: \`${[command, ...args].join(' ')}\` failed`)
    process.exit(1)
  }
}
