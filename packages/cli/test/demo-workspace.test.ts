import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { main } from '../src/cli.js'
import type { Output } from '../src/display/output.js'

let base: string

beforeAll(() => {
  base = mkdtempSync(path.join(tmpdir(), 'tooltx-k4-'))
})

afterAll(() => rmSync(base, { recursive: true, force: true }))

/** Runs `tooltx demo --fast --db <dir>/sessions.db` in-process; returns the exit code and stderr lines. */
async function demo(dir: string) {
  const errors: string[] = []
  const out: Output = {
    interactive: false,
    line: () => {},
    error: (text) => errors.push(text),
    text: () => {},
    status: () => {},
    columns: undefined,
    prompt: undefined,
    onClosed: () => () => {},
  }
  const code = await main(['demo', '--fast', '--db', path.join(dir, 'sessions.db')], out)
  return { code, errors }
}

describe('K4.1 the demo deletes only a workspace it created', () => {
  it('K4.1: a folder of the user named demo-workspace beside --db is left untouched, with a clear error', async () => {
    const dir = path.join(base, 'user')
    mkdirSync(path.join(dir, 'demo-workspace'), { recursive: true })
    writeFileSync(path.join(dir, 'demo-workspace/thesis.txt'), 'three years of work\n')
    const result = await demo(dir)
    expect(result.code).toBe(1)
    expect(result.errors).toEqual([
      `tooltx: ${path.join(dir, 'demo-workspace')} already exists and was not created by tooltx demo, ` +
        'so the demo will not delete it; move it away, or pass --db with a path in another folder',
    ])
    expect(readFileSync(path.join(dir, 'demo-workspace/thesis.txt'), 'utf8')).toBe('three years of work\n')
    expect(existsSync(path.join(dir, 'sessions.db'))).toBe(false)
  })

  it('K4.1: a link named demo-workspace is neither followed nor removed', async () => {
    const dir = path.join(base, 'link')
    const target = path.join(base, 'elsewhere')
    mkdirSync(dir, { recursive: true })
    mkdirSync(target)
    // Even a marker behind the link does not make the link the demo's.
    writeFileSync(path.join(target, '.tooltx-demo-workspace'), 'not the demo’s\n')
    writeFileSync(path.join(target, 'keep.txt'), 'keep\n')
    symlinkSync(target, path.join(dir, 'demo-workspace'))
    const result = await demo(dir)
    expect(result.code).toBe(1)
    expect(result.errors[0]).toContain('was not created by tooltx demo')
    expect(readFileSync(path.join(dir, 'demo-workspace/keep.txt'), 'utf8')).toBe('keep\n')
  })

  it('K4.1: a workspace an earlier demo created is replaced by a fresh copy', async () => {
    const dir = path.join(base, 'again')
    const first = await demo(dir)
    expect(first).toEqual({ code: 0, errors: [] })
    const root = path.join(dir, 'demo-workspace')
    expect(readFileSync(path.join(root, '.tooltx-demo-workspace'), 'utf8')).toContain(
      'Created by `tooltx demo`',
    )
    writeFileSync(path.join(root, 'stray.txt'), 'left over\n')
    const second = await demo(dir)
    expect(second).toEqual({ code: 0, errors: [] })
    expect(existsSync(path.join(root, 'stray.txt'))).toBe(false)
    expect(readFileSync(path.join(root, 'notes/todo-summary.md'), 'utf8')).toContain('# Open TODOs')
  })
})
