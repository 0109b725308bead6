/** The viewer's server and a page on it, as the browser tests open them. */
import type { Browser, Page } from 'playwright-core'
import { expect, onTestFinished } from 'vitest'
import { cliDefinitions } from '../src/session-timeline.js'
import { startViewerServer, type ViewerServer } from '../src/viewer/viewer-server.js'
import { openViewerSource } from '../src/viewer/viewer-source.js'

/** Serves the sessions of `db` (with `idleMs` when given), closed when the test finishes. */
export async function serveViewer(db: string, idleMs?: number): Promise<ViewerServer> {
  const source = openViewerSource(db)
  const server = await startViewerServer({
    source,
    definitions: cliDefinitions(),
    ...(idleMs ? { idleMs } : {}),
  })
  onTestFinished(async () => {
    await server.close()
    await source.close()
  })
  return server
}

/**
 * A page of its own context in `browser`, closed when the test finishes, which then fails if the
 * page threw or asked anything of a server other than its own loopback one (G5.1).
 */
export async function openPage(browser: Browser, options: { bypassCSP?: boolean } = {}): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, ...options })
  onTestFinished(() => context.close())
  const page = await context.newPage()
  const problems: string[] = []
  page.on('pageerror', (error) => problems.push(error.message))
  page.on('request', (request) => {
    if (!request.url().startsWith('http://127.0.0.1:') && !request.url().startsWith('data:'))
      problems.push(`request to ${request.url()}`)
  })
  onTestFinished(() => expect(problems).toEqual([]))
  return page
}
