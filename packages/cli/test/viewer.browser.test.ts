import { cpSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { createAgent, scripted } from '@tooltx/agent'
import { createToolRuntime, defineTool } from '@tooltx/core'
import { openSession, sqliteStore } from '@tooltx/session'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, expect, it, onTestFinished } from 'vitest'
import { userMessageEvent } from '../../session/test/user-message.js'
import { SAMPLE_WORKSPACE } from '../src/commands/demo.js'
import { DEMO_SCRIPT, DEMO_TASK } from '../src/demo-script.js'
import { renderSession } from '../src/session-timeline.js'
import { createToolset } from '../src/toolset.js'
import { describeBrowser, launchBrowser, screenshot, seriousViolations } from './browser.js'
import { codeModeTurn, DEMO_TOOLS, demoSession, numbered, writeBigSession } from './viewer-fixtures.js'
import { openPage, serveViewer } from './viewer-page.js'

/** The most a 100k-event session may take to open in the browser (G3.4). */
const OPEN_LIMIT_MS = 2000

let browser: Browser
let dir: string
let demo: { db: string; id: string }

const newPage = (options: { bypassCSP?: boolean } = {}): Promise<Page> => openPage(browser, options)
const serve = serveViewer

/** The title of the card whose header has the keyboard focus. */
function focusedTitle(page: Page): Promise<string | undefined> {
  return page.evaluate("document.activeElement?.closest('.card')?.querySelector('.title')?.textContent")
}

/** The card titles, tool names and failure codes the page shows, in order. */
async function shownCards(page: Page): Promise<{ name: string; title: string; code: string | null }[]> {
  return page.$$eval('.card', (cards) =>
    cards.map((card) => ({
      name: card.querySelector('.tool')!.textContent!,
      title: card.querySelector('.title')!.textContent!,
      code: card.querySelector('header .badge.failure')?.textContent ?? null,
    })),
  )
}

describeBrowser('G3 the pages in a browser', () => {
  beforeAll(async () => {
    browser = await launchBrowser()
    dir = mkdtempSync(path.join(tmpdir(), 'tooltx-view-browser-'))
    demo = await demoSession(dir)
  }, 120_000)

  afterAll(async () => {
    await browser?.close()
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
  })

  it('G1.1, G3.1, G3.2: the demo session shows the calls, titles and codes of the CLI timeline; a diff card expands', async () => {
    const server = await serve(demo.db)
    const page = await newPage()
    await page.goto(server.url)
    await page.getByRole('link', { name: /Find the open TODOs/ }).waitFor()
    const row = await page.$eval('tbody tr', (tr) =>
      [...tr.querySelectorAll('td')].map((td) => td.textContent),
    )
    expect([row[1], row[4], row[5], row[6]]).toEqual(['completed', '1', '7', '2'])
    await screenshot(page, 'sessions')
    await page.getByLabel('Search').fill('no such task')
    await expect.poll(() => page.locator('tbody tr').count()).toBe(0)
    await page.getByLabel('Search').fill('todos')
    await expect.poll(() => page.locator('tbody tr').count()).toBe(1)
    await page.getByRole('link', { name: /Find the open TODOs/ }).click()
    await page.locator('.card').first().waitFor()

    const { sqliteReader } = await import('@tooltx/session')
    const reader = sqliteReader(demo.db)!
    const lines = renderSession((await reader.read(demo.id))!)
    await reader.close()
    const cliTitles = lines.filter((l) => l.startsWith('    ▶ ')).map((l) => l.slice(6))
    const cliCodes = lines.flatMap((l) => /^ {4}✗ (\S+) failed \((\S+)\)$/.exec(l)?.slice(1, 3) ?? [])
    const cards = await shownCards(page)
    expect(cards.map((c) => c.title)).toEqual(cliTitles)
    expect(cards.flatMap((c) => (c.code === null ? [] : [c.name, c.code]))).toEqual(cliCodes)
    expect(cards.map((c) => c.name)).toEqual(DEMO_TOOLS)

    const write = page.locator('.card', { hasText: 'write_note' })
    await write.getByRole('button', { name: /write_note/ }).click()
    await expect.poll(() => write.locator('.diff .add').count()).toBe(6)
    expect(await write.locator('.diff figcaption').textContent()).toBe('new file: notes/todo-summary.md')
    expect(await write.locator('.diff .add').first().textContent()).toBe('+ # Open TODOs\n')
    expect(await write.locator('.badge.approval').textContent()).toBe('approval: allowed-once')
    expect(await write.locator('p.approval').allTextContents()).toEqual([
      expect.stringMatching(/^Approval asked: writes a file in the workspace digest [0-9a-f]{64}$/),
      expect.stringMatching(/^Approval decided: allowed-once digest [0-9a-f]{64}$/),
    ])
    const read = page.locator('.card', { hasText: 'Read README.md' })
    await read.getByRole('button').first().click()
    expect(await read.locator('.lines th').first().textContent()).toBe('1')
    await screenshot(page, 'session')
  })

  it('G3.2: a Code Mode card shows its program highlighted and its nested calls as a tree; a context shows where it entered', async () => {
    const db = path.join(dir, 'code.db')
    const store = sqliteStore(db)
    await store.load('code')
    const context = userMessageEvent('the build is red', { kind: 'reminder' })
    const turn = codeModeTurn()
    await store.append('code', numbered([...turn.slice(0, -2), context, ...turn.slice(-2)]))
    await store.close()
    const server = await serve(db)
    const page = await newPage()
    await page.goto(`${server.url}/session/code`)
    const card = page.locator('.card', { hasText: 'run_code' })
    await card.getByRole('button').first().click()
    expect(await card.locator('.program .tok-keyword').allTextContents()).toEqual([
      'const',
      'await',
      'return',
    ])
    expect(await card.locator('.program .tok-comment').textContent()).toBe('// then b')
    expect(await card.locator('.body > .tree > li > .tool').allTextContents()).toEqual([
      'read_file',
      'read_file',
    ])
    expect(await card.locator('.tree .tree .tool').allTextContents()).toEqual(['grep'])
    expect(await card.locator('.tree .badge.failure').allTextContents()).toEqual(['NOT_FOUND'])
    expect(await page.locator('.message.context').textContent()).toBe(
      'context from reminderthe build is red#13',
    )
    await screenshot(page, 'session-code-mode')
  })

  it('H1.6: a card whose result is labelled shows an untrusted or confidential badge; an unlabelled one shows none', async () => {
    const db = path.join(dir, 'labels.db')
    const session = await openSession(sqliteStore(db), { id: 'labels' })
    const runtime = createToolRuntime()
    const scope = runtime.scope()
    scope.register(
      defineTool({
        name: 'inbox',
        description: 'inbox',
        parameters: {},
        execute: () => 'mail',
        provenance: { integrity: 'untrusted', confidential: true },
      }),
    )
    scope.register(defineTool({ name: 'clock', description: 'clock', parameters: {}, execute: () => 'noon' }))
    const calls = ['inbox', 'clock'].map((name) => ({ id: name, name, arguments: '{}' }))
    await createAgent({
      runtime,
      scope,
      session,
      model: scripted([{ toolCalls: calls }, { text: 'done' }]),
    }).send('go')
    await session.close()
    const server = await serve(db)
    const page = await newPage()
    await page.goto(`${server.url}/session/labels`)
    const badges = (name: string) =>
      page.locator('.card', { hasText: name }).locator('header .badge').allTextContents()
    await expect.poll(() => badges('inbox')).toEqual(['untrusted', 'confidential'])
    expect(await badges('clock')).toEqual([])
  })

  it('G3.3: failures only shows just the failed calls; a tool filter keeps that tool', async () => {
    const server = await serve(demo.db)
    const page = await newPage()
    await page.goto(`${server.url}/session/${demo.id}`)
    await page.locator('.card').first().waitFor()
    await page.getByLabel('Failures only').check()
    await expect
      .poll(async () => (await shownCards(page)).map((c) => `${c.name} ${c.code}`))
      .toEqual(['read_file DENIED', 'run_check TOOL_TIMEOUT'])
    await expect.poll(() => page.locator('.count').textContent()).toBe('2 calls shown')
    await screenshot(page, 'session-failures')
    await page.getByLabel('Failures only').uncheck()
    await page.getByLabel('Tool').selectOption('run_check')
    await expect
      .poll(async () => (await shownCards(page)).map((c) => c.title))
      .toEqual(['$ Run lint', '$ Run slow-check'])
  })

  it('G3.6: a link to an event opens its card and marks it; its raw event JSON shows on demand', async () => {
    const server = await serve(demo.db)
    const page = await newPage()
    await page.goto(`${server.url}/session/${demo.id}#e18`)
    const card = page.locator('.card.target')
    await card.waitFor()
    expect(await card.locator('.title').textContent()).toBe('$ Run slow-check')
    expect(await card.getByRole('button').first().getAttribute('aria-expanded')).toBe('true')
    await card.getByRole('button', { name: 'raw event 18' }).click()
    const raw = JSON.parse((await card.locator('.raw pre').textContent())!)
    expect(raw).toMatchObject({ seq: 18, type: 'tool/call', data: { name: 'run_check' } })
  })

  it('G3.5: arrow keys, j/k, Home and End move between cards and Enter opens one', async () => {
    const server = await serve(demo.db)
    const page = await newPage()
    await page.goto(`${server.url}/session/${demo.id}`)
    await page.locator('.card').first().waitFor()
    const focused = () => focusedTitle(page)
    await page.locator('.toggle').first().focus()
    await page.keyboard.press('ArrowDown')
    await expect.poll(focused).toBe('Search for /TODO/  [search]')
    await page.keyboard.press('j')
    await expect.poll(focused).toBe('Read README.md  [read]')
    await page.keyboard.press('k')
    await expect.poll(focused).toBe('Search for /TODO/  [search]')
    await page.keyboard.press('End')
    await expect.poll(focused).toBe('Write notes/todo-summary.md')
    await page.keyboard.press('Enter')
    await expect.poll(() => page.locator('.card', { hasText: 'write_note' }).locator('.diff').count()).toBe(1)
    await page.keyboard.press('Home')
    await expect.poll(focused).toBe('List .  [search]')
  })

  it('G3.5: axe finds no serious or critical violations on the sessions page or an open session', async () => {
    const server = await serve(demo.db)
    const page = await newPage({ bypassCSP: true })
    await page.goto(server.url)
    await page.locator('tbody tr').first().waitFor()
    expect(await seriousViolations(page)).toEqual([])
    await page.goto(`${server.url}/session/${demo.id}#e23`)
    await page.locator('.card.target .diff').waitFor()
    await page.getByLabel('Failures only').focus()
    expect(await seriousViolations(page)).toEqual([])
  })

  it('G4.1, G4.2: a session being written shows its new calls as they land, then says it is idle', async () => {
    const db = path.join(dir, 'live.db')
    const store = sqliteStore(db)
    const session = await openSession(store, { id: 'live-run' })
    const server = await serve(db, 1500)
    const page = await newPage()
    await page.goto(`${server.url}/session/live-run`)
    await page.locator('.follow').waitFor()
    expect(await page.locator('.card').count()).toBe(0)

    const root = mkdtempSync(path.join(tmpdir(), 'tooltx-view-live-'))
    onTestFinished(() => rmSync(root, { recursive: true, force: true }))
    cpSync(SAMPLE_WORKSPACE, root, { recursive: true })
    const { runtime, scope } = createToolset({ root })
    const agent = createAgent({
      runtime,
      scope,
      session,
      model: scripted(DEMO_SCRIPT, { delayMs: 30 }),
      approver: () => 'allowed-once',
    })
    const counts = new Set<number>()
    let sawLive = false
    const watch = setInterval(async () => {
      counts.add(
        await page
          .locator('.card')
          .count()
          .catch(() => -1),
      )
      if (
        (await page
          .locator('.follow.live')
          .count()
          .catch(() => 0)) > 0
      )
        sawLive = true
    }, 50)
    agent.send(DEMO_TASK)
    await agent.whenIdle()
    await expect.poll(() => page.locator('.card').count(), { timeout: 10_000 }).toBe(7)
    clearInterval(watch)
    expect(sawLive).toBe(true)
    // New calls appeared in place, some before others: the page showed counts between none and all.
    expect([...counts].some((n) => n > 0 && n < 7)).toBe(true)
    expect(await page.locator('.card', { hasText: 'DENIED' }).count()).toBe(1)
    await expect
      .poll(() => page.locator('.follow').textContent(), { timeout: 10_000 })
      .toBe('Idle: no new events')
    await screenshot(page, 'session-live')
    await session.close()
    await store.close()
  })

  it('G3.4: a 100k-event session opens within the limit and scrolls to its end', async () => {
    const db = path.join(dir, 'big.db')
    const written = await writeBigSession(db, 'big', 100_000)
    expect(written).toBe(100_000)
    const server = await serve(db)
    const cold = performance.now()
    await (await fetch(`${server.url}/api/sessions/big`)).arrayBuffer()
    const readMs = performance.now() - cold
    const page = await newPage()
    const started = performance.now()
    await page.goto(`${server.url}/session/big`)
    await page.locator('.card').first().waitFor()
    const openMs = performance.now() - started
    console.log(
      `G3.4: 100k events: server's first read ${readMs.toFixed(0)} ms; page open ${openMs.toFixed(0)} ms`,
    )
    expect(openMs).toBeLessThan(OPEN_LIMIT_MS)
    // The rest of the session loads behind the first screen.
    await expect
      .poll(() => page.locator('.count').textContent(), { timeout: 60_000 })
      .toBe('19999 calls shown')
    // Only the rows near the screen are in the page.
    expect(await page.locator('.row').count()).toBeLessThan(200)
    await page.locator('.toggle').first().focus()
    await page.keyboard.press('End')
    await expect.poll(() => focusedTitle(page)).toBe('list_files')
    expect(await page.locator('.card').last().locator('.anchor').textContent()).toBe('#99997')
    await screenshot(page, 'session-100k')
  }, 180_000)
})
