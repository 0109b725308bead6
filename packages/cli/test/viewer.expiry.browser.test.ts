/**
 * G3.11, G3.12 in Chromium: a durable ask nobody decided reads as expired once its time passed —
 * on its card, without a reload or a new event, and in the sessions list — with the CLI's words.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { describeBrowser, launchBrowser, screenshot, seriousViolations } from './browser.js'
import { expiringEdit } from './viewer-fixtures.js'
import { openPage, serveViewer } from './viewer-page.js'

const HOUR = 60 * 60 * 1000

let browser: Browser
let dir: string

const newPage = (): Promise<Page> => openPage(browser)
const serve = serveViewer

describeBrowser('G3.11, G3.12 an expired durable ask in the viewer', () => {
  beforeAll(async () => {
    browser = await launchBrowser()
    dir = mkdtempSync(path.join(tmpdir(), 'tooltx-view-expiry-'))
  }, 120_000)

  afterAll(async () => {
    await browser?.close()
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
  })

  it('G3.11, G3.5: an open card turns from waiting for approval to expired when its time comes, with no reload and no new event', async () => {
    const db = path.join(dir, 'waiting.db')
    const expiresAt = await expiringEdit(db, 'edits', { task: 'shout the second line', expiresAfterMs: HOUR })
    const server = await serve(db)
    const page = await newPage()
    // The page's clock runs on from now; fast-forwarding it an hour brings the expiry.
    await page.clock.install()
    await page.goto(`${server.url}/session/edits`)
    const card = page.locator('.card', { hasText: 'edit_file' })
    await card.getByRole('button', { name: /edit_file/ }).click()
    const badge = card.locator('.badge.approval')
    expect(await badge.textContent()).toBe('waiting for approval')
    expect(await card.locator('p.approval').first().textContent()).toContain(
      `(durable: waiting for approval until ${expiresAt})`,
    )
    await page.evaluate(() => {
      ;(globalThis as { loadedOnce?: boolean }).loadedOnce = true
    })

    await page.clock.fastForward(HOUR + 1000)
    await card.locator('.badge.approval.expired').waitFor()
    expect(await badge.textContent()).toBe('approval: expired')
    expect(await badge.getAttribute('title')).toBe(
      `expired ${expiresAt}: nobody decided in time, so the call is denied`,
    )
    // The words of `tooltx approvals` and the timeline (K5.15, K5.18).
    expect(await card.locator('p.approval.expired').textContent()).toBe(
      `Approval expired ${expiresAt}: nobody decided in time, so the call is denied`,
    )
    expect(await card.locator('p.approval').first().textContent()).toContain(`(durable, until ${expiresAt})`)
    expect(await card.textContent()).not.toContain('waiting for approval')
    // Denied by its expiry, the call is not running either.
    expect(await card.locator('.running').count()).toBe(0)
    expect(await page.evaluate(() => (globalThis as { loadedOnce?: boolean }).loadedOnce)).toBe(true)
    await screenshot(page, 'expired-ask')
    // G3.5 holds for the expired card too (its marks are readable).
    expect(await seriousViolations(page)).toEqual([])
  }, 60_000)

  it('G3.11, G3.12: a session whose ask already expired lists as approval expired, and its card opens expired', async () => {
    const db = path.join(dir, 'both.db')
    await expiringEdit(db, 'later', { task: 'decide me later', expiresAfterMs: HOUR })
    // Long enough for the fixture to close its session first: a live agent would record the expiry itself (F2.18).
    const expiresAt = await expiringEdit(db, 'gone', { task: 'nobody came', expiresAfterMs: 1000 })
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, Date.parse(expiresAt) - Date.now()) + 5))
    const server = await serve(db)
    const page = await newPage()
    await page.goto(server.url)
    const status = (id: string) => page.locator('tr', { hasText: id }).locator('.status')
    await status('gone').waitFor()
    expect(await status('gone').textContent()).toBe('approval expired')
    expect(await status('later').textContent()).toBe('waiting for approval')
    await page.getByRole('link', { name: 'nobody came' }).click()
    const card = page.locator('.card', { hasText: 'edit_file' })
    await card.getByRole('button', { name: /edit_file/ }).click()
    expect(await card.locator('.badge.approval').textContent()).toBe('approval: expired')
    expect(await card.locator('p.approval.expired').textContent()).toBe(
      `Approval expired ${expiresAt}: nobody decided in time, so the call is denied`,
    )
  }, 60_000)
})
