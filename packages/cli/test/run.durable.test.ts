import { readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { cleanEnv, sampleWorkspace, scratch, tooltxWith } from './cli-harness.js'
import { fakeModel, toolMessage } from './fake-model.js'

const env = cleanEnv({ OPENAI_API_KEY: 'test-key' })

/** A model whose first reply edits `hello.txt` (call `call_edit`), then says `done.`. */
const editingModel = () =>
  fakeModel([
    {
      toolCalls: [
        {
          id: 'call_edit',
          name: 'edit_file',
          arguments: JSON.stringify({ path: 'hello.txt', old_text: 'two', new_text: 'TWO' }),
        },
      ],
    },
    { text: 'done.' },
  ])

/** A workspace with `hello.txt`, a database beside it, and `tooltx` run there against `baseURL`. */
function setup(baseURL: string) {
  const ws = sampleWorkspace()
  const file = path.join(ws, 'hello.txt')
  writeFileSync(file, 'one\ntwo\n')
  const db = path.join(scratch(), 'sessions.db')
  const cli = (...args: string[]) => tooltxWith({ cwd: ws, env }, ...args, '--db', db)
  const run = (...args: string[]) => cli('run', ...args, '--workspace', ws, '--base-url', baseURL)
  return { ws, file, db, cli, run }
}

/** The session id a run printed. */
function sessionOf(stdout: string): string {
  const id = /Session saved as (\S+) in/.exec(stdout)?.[1]
  if (id === undefined) throw new Error(`no session in:\n${stdout}`)
  return id
}

describe('tooltx run --approvals durable', () => {
  it('K5.10, K5.11, K5.12: an ask suspends the run (exit 0, the commands printed); approve decides it; run --session resumes the turn and the edit runs once', async () => {
    const model = await editingModel()
    const { file, db, cli, run } = setup(model.baseURL)
    const first = await run('tidy up', '--approvals', 'durable')
    expect(first.code).toBe(0)
    const id = sessionOf(first.stdout)
    expect(first.stdout).toMatch(
      /The turn waits for a durable approval of edit_file \(call call_edit\) until \d{4}-\d\d-\d\dT/,
    )
    expect(first.stdout).toContain(
      `Decide it from another command: npx tooltx approve ${id} call_edit --db ${db}   (or add --deny)`,
    )
    expect(first.stdout).toContain(
      `Then finish the turn with: npx tooltx run --session ${id} --approvals durable --db ${db}`,
    )
    expect(first.stdout).toContain(`See the change it waits on with: npx tooltx approvals --db ${db}`)
    expect(readFileSync(file, 'utf8')).toBe('one\ntwo\n')
    // Resuming before anyone decided changes nothing and says what to do.
    const early = await run('--session', id, '--approvals', 'durable')
    expect(early.code).toBe(1)
    expect(early.stderr).toContain(
      `tooltx: the turn still waits for a decision on edit_file (call call_edit); decide it with npx tooltx approve ${id} call_edit --db ${db}, then run npx tooltx run --session ${id} --approvals durable --db ${db} again`,
    )
    const listed = await cli('approvals')
    expect(listed.stdout).toContain('reason: changes hello.txt (2 lines now; file sha256 ')
    const digest = /digest: ([0-9a-f]+)/.exec(listed.stdout)![1]!
    const approved = await cli('approve', id, 'call_edit', '--digest', digest, '--by', 'ops')
    expect(approved.code).toBe(0)
    expect(approved.stdout).toContain(
      `The turn continues when the session is resumed: npx tooltx run --session ${id} --approvals durable --db ${db}`,
    )
    const resumed = await run('--session', id, '--approvals', 'durable')
    expect(resumed.code).toBe(0)
    expect(resumed.stdout).toContain('▶ the turn resumes after the decision')
    expect(readFileSync(file, 'utf8')).toBe('one\nTWO\n')
    expect(toolMessage(model, 'call_edit')).not.toMatch(/^Error/)
    expect(model.requests).toHaveLength(2)
  }, 60_000)

  it('K5.13: a file changed between the durable ask and the resume is not written: the approved edit fails with CONFLICT', async () => {
    const model = await editingModel()
    const { file, cli, run } = setup(model.baseURL)
    const id = sessionOf((await run('tidy up', '--approvals', 'durable')).stdout)
    const digest = /digest: ([0-9a-f]+)/.exec((await cli('approvals')).stdout)![1]!
    expect((await cli('approve', id, 'call_edit', '--digest', digest)).code).toBe(0)
    // Someone edits the file after the diff was shown, keeping the text the edit replaces.
    writeFileSync(file, 'zero\none\ntwo\n')
    const resumed = await run('--session', id, '--approvals', 'durable')
    expect(resumed.code).toBe(0)
    expect(resumed.stdout).toContain('✗ edit_file failed (CONFLICT)')
    expect(readFileSync(file, 'utf8')).toBe('zero\none\ntwo\n')
    expect(toolMessage(model, 'call_edit')).toBe(
      'Error: "hello.txt" changed after the change was shown for approval, so nothing was written; ' +
        'read the file again and make the change against what it holds now',
    )
  }, 60_000)

  it('K5.11: a run with no task on a session with no suspended turn says to give it a task (exit 1); without --session it is a usage error', async () => {
    const model = await fakeModel([{ text: 'nothing to do.' }])
    const { run } = setup(model.baseURL)
    const done = await run('look around', '--approvals', 'durable')
    expect(done.code).toBe(0)
    const id = sessionOf(done.stdout)
    const again = await run('--session', id, '--approvals', 'durable')
    expect(again.code).toBe(1)
    expect(again.stderr).toContain(
      `tooltx: session "${id}" has no turn waiting for an approval; give run a task`,
    )
    const bare = await run('--approvals', 'durable')
    expect(bare.code).toBe(2)
    expect(bare.stderr).toContain('run needs a task')
  })

  it('K5.14, K5.15, K5.16, K5.18, K5.19: an ask of --approval-expiry 1 that nobody decides: approvals lists it as expired and replay ends with its expiry in the same words, approve records the expiry (exit 1), and run --session goes on with the call denied', async () => {
    const model = await editingModel()
    const { file, db, cli, run } = setup(model.baseURL)
    const first = await run('tidy up', '--approvals', 'durable', '--approval-expiry', '1')
    expect(first.code).toBe(0)
    const id = sessionOf(first.stdout)
    const until = /until (\S+)\.$/m.exec(first.stdout)![1]!
    expect(Date.parse(until) - Date.now()).toBeLessThan(1000)
    expect(first.stdout).toContain(
      'If nobody decides before it expires, finishing the turn denies the call and goes on without it.',
    )
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, Date.parse(until) - Date.now()) + 50))
    const listed = await cli('approvals')
    expect(listed.code).toBe(0)
    expect(listed.stdout.split('\n').filter((line) => line.includes(id))).toEqual([
      `${id}  call call_edit  edit_file  expired ${until}: nobody decided in time, so the call is denied`,
      `    the turn continues without it: npx tooltx run --session ${id} --approvals durable --db ${db}`,
    ])
    expect(listed.stdout).not.toContain(`approve: npx tooltx approve ${id}`)
    expect(listed.stdout).toContain('1 approval expired with nobody deciding: denied when the turn continues')
    expect(listed.stdout).toContain(`no approvals are waiting in ${db}`)
    expect((await cli('sessions')).stdout).toMatch(
      new RegExp(`${id} +\\d+ +\\S+ +suspended +\\(approval expired\\) tidy up`),
    )
    const replayed = await cli('replay', id)
    expect(replayed.stdout.trimEnd().split('\n').at(-1)).toBe(
      `    ? approval for edit_file expired ${until}: nobody decided in time, so the call is denied`,
    )
    // Without a terminal and without --digest: the expiry is recorded, not a request to confirm.
    const late = await cli('approve', id, 'call_edit')
    expect(late.code).toBe(1)
    expect(late.stderr).toBe(
      `tooltx: the approval of call "call_edit" expired at ${until}; it is recorded as expired, so the call is denied\n`,
    )
    expect(late.stdout).toContain(
      `The turn continues when the session is resumed: npx tooltx run --session ${id} --approvals durable --db ${db}`,
    )
    expect((await cli('approvals')).stdout).toContain(`no approvals are waiting in ${db}`)
    const recorded = (await cli('replay', id)).stdout
    expect(recorded).not.toContain('nobody decided in time')
    expect(recorded).toContain('    ? approval for edit_file: expired\n')
    const resumed = await run('--session', id, '--approvals', 'durable')
    expect(resumed.code).toBe(0)
    expect(resumed.stdout).toContain('▶ the turn resumes after the decision')
    expect(resumed.stdout).toContain('✗ edit_file failed (DENIED)')
    expect(readFileSync(file, 'utf8')).toBe('one\ntwo\n')
    expect(toolMessage(model, 'call_edit')).toBe(
      'Error: approval for tool "edit_file" expired before anyone decided it',
    )
  }, 60_000)

  it('K5.14: --approval-expiry is a whole number of seconds >= 1, and goes with --approvals durable (usage errors, exit 2)', async () => {
    const { run } = setup('http://127.0.0.1:9/v1')
    const alone = await run('tidy up', '--approval-expiry', '60')
    expect(alone.code).toBe(2)
    expect(alone.stderr).toContain('--approval-expiry goes with --approvals durable')
    const zero = await run('tidy up', '--approvals', 'durable', '--approval-expiry', '0')
    expect(zero.code).toBe(2)
    expect(zero.stderr).toContain('--approval-expiry must be a whole number of at least 1, got "0"')
  })

  it('K5.10: --approvals takes only durable, and not with --yes (usage errors, exit 2)', async () => {
    const { run } = setup('http://127.0.0.1:9/v1')
    const other = await run('tidy up', '--approvals', 'later')
    expect(other.code).toBe(2)
    expect(other.stderr).toContain('--approvals takes only "durable", got "later"')
    const both = await run('tidy up', '--approvals', 'durable', '--yes')
    expect(both.code).toBe(2)
    expect(both.stderr).toContain('--approvals durable and --yes contradict each other: pick one')
  })
})
