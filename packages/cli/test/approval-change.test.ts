import { mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { createAgent, scripted } from '@tooltx/agent'
import { openSession, sqliteStore } from '@tooltx/session'
import { expect, it, onTestFinished } from 'vitest'
import { cliDefinitions } from '../src/session-timeline.js'
import { createWorkspaceToolset } from '../src/toolset.js'
import { startViewerServer } from '../src/viewer/viewer-server.js'
import { openViewerSource } from '../src/viewer/viewer-source.js'
import { describeBrowser, launchBrowser } from './browser.js'
import { scratch, tooltx } from './cli-harness.js'

/**
 * A session database in a scratch folder holding one turn suspended on a durable approval of
 * an `edit_file` call of the general workspace tools, whose ask recorded its diff.
 */
async function suspendedEdit(): Promise<{ cwd: string; db: string }> {
  const cwd = scratch()
  const ws = path.join(cwd, 'ws')
  mkdirSync(ws)
  writeFileSync(path.join(ws, 'hello.txt'), 'one\ntwo\nthree\n')
  const { runtime, scope } = createWorkspaceToolset({ root: ws })
  const db = path.join(cwd, 'sessions.db')
  const store = sqliteStore(db)
  const session = await openSession(store, { id: 'edits' })
  const edit = { path: 'hello.txt', old_text: 'two', new_text: 'TWO' }
  const agent = createAgent({
    runtime,
    scope,
    session,
    model: scripted([
      { toolCalls: [{ id: 'call_edit', name: 'edit_file', arguments: JSON.stringify(edit) }] },
    ]),
    approvals: 'durable',
  })
  await agent.send('shout the second line')
  await session.close()
  await store.close()
  return { cwd, db }
}

const DIFF = ['--- a/hello.txt', '+++ b/hello.txt', '@@ -1,3 +1,3 @@', ' one', '-two', '+TWO', ' three']

it('K5.9: tooltx approvals shows the recorded diff of a durable edit, indented under its reason', async () => {
  const { cwd, db } = await suspendedEdit()
  const listed = await tooltx(cwd, 'approvals', '--db', db)
  expect(listed.code).toBe(0)
  expect(listed.stdout.replace(/file sha256 [0-9a-f]{12}\)/, 'file sha256 <digest>)')).toContain(
    [
      '    reason: changes hello.txt (3 lines now; file sha256 <digest>)',
      ...DIFF.map((line) => `      ${line}`),
      '    arguments: {"path":"hello.txt","old_text":"two","new_text":"TWO"}',
    ].join('\n'),
  )
  expect(listed.stdout).toMatch(/^edits {2}call call_edit {2}edit_file {2}expires /)
})

it('K5.9: tooltx approve shows the recorded diff before the arguments it asks to confirm', async () => {
  const { cwd, db } = await suspendedEdit()
  const shown = await tooltx(cwd, 'approve', 'edits', 'call_edit', '--db', db)
  expect(shown.code).toBe(2)
  expect(shown.stdout.replace(/file sha256 [0-9a-f]{12}\)/, 'file sha256 <digest>)')).toMatch(
    new RegExp(
      `^edit_file \\(call call_edit\\) in edits\n${[
        '    reason: changes hello.txt (3 lines now; file sha256 <digest>)',
        ...DIFF.map((line) => `      ${line}`),
        '    arguments: {"path":"hello.txt","old_text":"two","new_text":"TWO"}',
      ]
        .join('\n')
        .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\n {4}digest: [0-9a-f]{64}\n$`,
    ),
  )
})

describeBrowser('the viewer in a browser', () => {
  it('K5.9, G3.10: the viewer shows a pending edit as the diff that was asked about, removed and added lines marked, and waiting for approval, not running', async () => {
    const { db } = await suspendedEdit()
    const source = openViewerSource(db)
    const server = await startViewerServer({ source, definitions: cliDefinitions() })
    const browser = await launchBrowser()
    onTestFinished(async () => {
      await browser.close()
      await server.close()
      await source.close()
    })
    const page = await browser.newPage()
    await page.goto(`${server.url}`)
    await page.getByRole('link', { name: /shout the second line/ }).click()
    const card = page.locator('.card', { hasText: 'edit_file' })
    await card.getByRole('button', { name: /edit_file/ }).click()
    const change = card.locator('pre.approval-change')
    await change.waitFor()
    expect(await change.textContent()).toBe(`${DIFF.join('\n')}\n`)
    expect(await change.locator('.del').allTextContents()).toEqual(['-two\n'])
    expect(await change.locator('.add').allTextContents()).toEqual(['+TWO\n'])
    expect(await card.locator('p.approval').first().textContent()).toMatch(
      /^Approval asked: changes hello\.txt \(3 lines now; file sha256 [0-9a-f]{12}\) \(durable: waiting for approval until .*\) digest [0-9a-f]{64}$/,
    )
    expect(await card.locator('.badge.approval').textContent()).toBe('waiting for approval')
    // G3.10: it waits for a person; it is not shown as running.
    expect(await card.locator('.running').count()).toBe(0)
  }, 60_000)
})
