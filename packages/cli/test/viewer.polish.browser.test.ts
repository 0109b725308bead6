/**
 * G3.7–G3.9 in Chromium: a Code Mode card and the sessions list count nested failures, a live
 * call shows how long it has run, and titles carry no terminal escape codes.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { type NewSessionEvent, openSession, sqliteStore } from '@tooltx/session'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, expect, it, onTestFinished } from 'vitest'
import { describeBrowser, launchBrowser, screenshot } from './browser.js'
import { codeModeTurn } from './viewer-fixtures.js'
import { openPage, serveViewer } from './viewer-page.js'

let browser: Browser
let dir: string

const newPage = (): Promise<Page> => openPage(browser)
const serve = serveViewer

/** Writes `events` as session `id` of the SQLite database `db`. */
async function write(db: string, id: string, events: readonly NewSessionEvent[]): Promise<void> {
  const store = sqliteStore(db)
  const session = await openSession(store, { id })
  await session.appendBatch(events)
  await session.close()
  await store.close()
}

describeBrowser('G3.7–G3.9 the viewer polished', () => {
  beforeAll(async () => {
    browser = await launchBrowser()
    dir = mkdtempSync(path.join(tmpdir(), 'tooltx-view-polish-'))
  }, 120_000)

  afterAll(async () => {
    await browser?.close()
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
  })

  it('G3.7, G3.9: a Code Mode card counts its nested failures, the sessions list counts them too, and a title shows no terminal codes', async () => {
    const db = path.join(dir, 'code.db')
    const events = codeModeTurn(1).map((event) =>
      event.type === 'user/message'
        ? {
            ...event,
            data: {
              ...event.data,
              message: {
                role: 'user',
                content: [{ type: 'text', text: '\u001b[31mrun\u001b[0m it\u001b]0;owned\u0007' }],
              },
            },
          }
        : event,
    ) as NewSessionEvent[]
    await write(db, 'code-run', events)
    const server = await serve(db)
    const page = await newPage()
    await page.goto(server.url)
    const row = page.locator('tr', { hasText: 'code-run' })
    await row.waitFor()
    expect(await row.locator('a').textContent()).toBe('run it')
    // Turns, calls, failures: the run_code call succeeded, one of its nested read_file calls failed.
    expect(await row.locator('td').allTextContents()).toEqual(expect.arrayContaining(['1', '1']))
    const overview = (await (await fetch(`${server.url}/api/sessions`)).json()) as {
      sessions: { id: string; failures: number; title: string }[]
    }
    expect(overview.sessions.find((s) => s.id === 'code-run')).toMatchObject({ failures: 1, title: 'run it' })

    await page.goto(`${server.url}/session/code-run`)
    const card = page.locator('.card').first()
    await card.waitFor()
    expect(await card.locator('.nested').textContent()).toBe('3 nested, 1 failed')
    expect(await card.locator('.nested .failure').textContent()).toBe(', 1 failed')
    await screenshot(page, 'code-mode-nested-failures')
  })

  it('G3.8: a call that is running shows how long it has run, counting up, until its result lands', async () => {
    const db = path.join(dir, 'live.db')
    const store = sqliteStore(db)
    onTestFinished(() => store.close())
    const session = await openSession(store, { id: 'slow-call' })
    const at = { turn: 1, step: 1 }
    await session.appendBatch([
      { type: 'turn/start', data: { turn: 1 } },
      { type: 'step/start', data: at },
      {
        type: 'user/message',
        data: { ...at, message: { role: 'user', content: [{ type: 'text', text: 'wait' }] } },
      },
    ])
    const server = await serve(db)
    const page = await newPage()
    await page.goto(`${server.url}/session/slow-call`)
    await page.locator('.follow').waitFor()
    const args = JSON.stringify({ command: 'sleep 5' })
    await session.appendBatch([
      {
        type: 'assistant/message',
        data: { ...at, content: [{ type: 'tool-call', id: 'c1', name: 'shell', arguments: args }] },
      },
      { type: 'tool/call', data: { ...at, callId: 'c1', name: 'shell', arguments: args } },
    ])
    const running = page.locator('.card .running')
    await expect.poll(() => running.textContent(), { timeout: 10_000 }).toMatch(/^running… \d+ s$/)
    await expect.poll(() => running.textContent(), { timeout: 10_000 }).toMatch(/^running… [2-9] s$/)
    await session.append('tool/result', {
      ...at,
      callId: 'c1',
      name: 'shell',
      isError: false,
      content: [{ type: 'text', text: 'done' }],
    })
    await expect.poll(() => page.locator('.card .duration').count(), { timeout: 10_000 }).toBe(1)
    expect(await running.count()).toBe(0)
    expect(await page.locator('.card .duration').textContent()).toMatch(/^\d{4,} ms$/)
    await session.close()
  })
})
