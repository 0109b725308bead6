#!/usr/bin/env node
// The installed `tooltx` command. It is a committed file, so `npm ci` can link it before the
// TypeScript is built; it runs the built CLI in dist/.
import { existsSync } from 'node:fs'

const built = new URL('../dist/bin.js', import.meta.url)
if (!existsSync(built)) {
  console.error('tooltx: the CLI is not built yet; run `npm run build` (or `npm run demo`) first')
  process.exit(1)
}
await import(built.href)
