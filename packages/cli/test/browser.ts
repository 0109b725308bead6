import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { type Browser, chromium, type Page } from 'playwright-core'
import { describe } from 'vitest'
import { VIEWER_ASSETS } from '../src/viewer/viewer-server.js'

/** Debian's Chromium, which `.ci/run` installs. */
export const CHROMIUM = '/usr/bin/chromium'

/** Where the browser tests keep their screenshots (gitignored). */
export const ARTIFACTS = fileURLToPath(new URL('../../../test-artifacts/viewer/', import.meta.url))

/**
 * `describe` for the browser tests: they skip where Chromium is not installed, except in CI
 * (`CI=true`), where a missing browser fails them.
 */
export const describeBrowser = existsSync(CHROMIUM) || process.env.CI === 'true' ? describe : describe.skip

/** Launches headless Chromium; fails saying how to install it, or that the page is not built. */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`no Chromium at ${CHROMIUM}: install it with \`apt-get install chromium\` (.ci/run does)`)
  }
  if (!existsSync(path.join(VIEWER_ASSETS, 'index.html'))) {
    throw new Error(`the viewer's page is not built (${VIEWER_ASSETS}): run \`npm run build\` first`)
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
  })
}

/** Saves a screenshot of `page` as `<ARTIFACTS>/<name>.png`. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true })
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`) })
}

/** The axe-core script, to evaluate in a page. */
export function axeSource(): string {
  return readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')
}

/** The axe violations of `page` whose impact is serious or critical, as `id: description`. */
export async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(axeSource())
  const found = (await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(): Promise<{ violations: unknown[] }> } }).axe
    return (await axe.run()).violations
  })) as { id: string; impact: string; description: string; nodes: { target: string[] }[] }[]
  return found
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.description} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`)
}
