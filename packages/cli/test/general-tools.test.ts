import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { type Approver, argumentsDigest, type JsonValue, type ToolResult } from '@tooltx/core'
import { applyPatch } from 'diff'
import fc from 'fast-check'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { replaceExactly } from '../src/tools/edit-file.js'
import { ChangeLedger, changePresentation } from '../src/tools/file-change.js'
import { allowedCommand, commandWords } from '../src/tools/shell-command.js'
import { createWorkspaceToolset, fixedApprover } from '../src/toolset.js'

let root: string

beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(tmpdir(), 'tooltx-general-')))
})
afterEach(() => rmSync(root, { recursive: true, force: true }))

let n = 0
/** Runs one call through the general toolset over `root`, answering asks with `approver`. */
function call(
  name: string,
  args: JsonValue,
  approver: Approver = fixedApprover('allowed-once'),
): Promise<ToolResult> {
  const { runtime, scope } = createWorkspaceToolset({ root })
  return runtime.execute({
    callId: `general_${++n}`,
    name,
    arguments: args,
    signal: new AbortController().signal,
    scope,
    approver,
  })
}

const code = (result: ToolResult) => (result.isError ? result.error.info?.code : 'ok')
const text = (result: ToolResult) =>
  result.content.map((block) => (block.type === 'text' ? block.text : '')).join('')

describe('edit_file', () => {
  it('K1.10: replaces exactly one match, every match with replace_all, and refuses none or several, counting them', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom('a', 'b', '\n', ' ', '$&') }),
        fc.string({ unit: fc.constantFrom('a', 'b', ' '), minLength: 1, maxLength: 3 }),
        fc.string({ unit: fc.constantFrom('x', '$1', '\n') }),
        fc.boolean(),
        (file, old, next, all) => {
          let count = 0
          for (let at = file.indexOf(old); at !== -1; at = file.indexOf(old, at + old.length)) count++
          const edit = { path: 'f.txt', old_text: old, new_text: next, replace_all: all }
          if (count === 0) {
            expect(() => replaceExactly(file, edit)).toThrow('found 0 matches of old_text in "f.txt"')
          } else if (count > 1 && !all) {
            expect(() => replaceExactly(file, edit)).toThrow(`found ${count} matches of old_text in "f.txt"`)
          } else {
            expect(replaceExactly(file, edit)).toEqual({
              text: file.replaceAll(old, () => next),
              replacements: count,
            })
          }
        },
      ),
    )
  })

  it('K1.10: an empty old_text is refused, saying to name the text or use write_file', () => {
    expect(() => replaceExactly('abc', { path: 'f', old_text: '', new_text: 'x' })).toThrow(
      'old_text is empty; name the exact text to replace, or use write_file',
    )
  })
})

describe('what a write or edit is approved as', () => {
  const lines = fc.array(fc.constantFrom('alpha', 'beta', '', '  indented', 'gamma'), { maxLength: 25 })
  const fileText = fc.tuple(lines, fc.boolean()).map(([ls, newline]) => ls.join('\n') + (newline ? '\n' : ''))

  it('K2.15: the diff shown is a true unified diff: applied to the file as it is, it gives exactly the new text', () => {
    fc.assert(
      fc.property(fc.option(fileText, { nil: null }), fileText, (before, after) => {
        const shown = changePresentation({ path: 'src/a.txt', before, after })
        const [head, ...patch] = shown.split('\n')
        if (before === after) {
          expect(shown).toBe('leaves src/a.txt as it is (the new text is the same)')
          return
        }
        expect(head).toMatch(
          before === null
            ? /^creates src\/a\.txt \(a new file, \d+ lines?\)$/
            : /^changes src\/a\.txt \(\d+ lines? now; file sha256 [0-9a-f]{12}\)$/,
        )
        expect(patch[0]).toBe(before === null ? '--- /dev/null' : '--- a/src/a.txt')
        expect(applyPatch(before ?? '', `${patch.join('\n')}\n`)).toBe(after)
      }),
    )
  })

  it('K2.15: a diff over 400 lines shows its first 400 and says how many more there are', () => {
    const after = Array.from({ length: 600 }, (_, i) => `line ${i}`).join('\n')
    const shown = changePresentation({ path: 'big.txt', before: null, after }).split('\n')
    expect(shown).toHaveLength(402)
    // 604 diff lines: two file names, one hunk header, 600 added lines and "\ No newline at end of file".
    expect(shown.at(-1)).toBe('[… 204 more diff lines not shown; the arguments hold the whole text]')
  })

  it('K2.15: the ask carries the presentation as its reason; K2.16: a change to the file meanwhile is a CONFLICT', async () => {
    writeFileSync(path.join(root, 'a.txt'), 'one\ntwo\n')
    const reasons: (string | undefined)[] = []
    const result = await call('edit_file', { path: 'a.txt', old_text: 'two', new_text: '2' }, (request) => {
      reasons.push(request.reason)
      writeFileSync(path.join(root, 'a.txt'), 'one\ntwo\nthree\n')
      return 'allowed-once'
    })
    expect(reasons[0]).toMatch(/^changes a\.txt \(2 lines now; file sha256 [0-9a-f]{12}\)\n--- a\/a\.txt\n/)
    expect(reasons[0]).toContain('\n-two\n+2')
    expect(code(result)).toBe('CONFLICT')
    expect(readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('one\ntwo\nthree\n')
    const unchanged = await call('edit_file', { path: 'a.txt', old_text: 'three', new_text: '3' })
    expect(code(unchanged)).toBe('ok')
    expect(readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('one\ntwo\n3\n')
  })

  it('K1.11: write_file creates folders inside the workspace and may write text that mentions secrets', async () => {
    const result = await call('write_file', {
      path: 'deep/er/notes.md',
      content: 'never commit .env or /etc/passwd',
    })
    expect(text(result)).toBe('Created deep/er/notes.md (32 bytes)')
    expect(readFileSync(path.join(root, 'deep/er/notes.md'), 'utf8')).toBe('never commit .env or /etc/passwd')
  })

  it('K1.11: a rejected write writes nothing', async () => {
    const result = await call('write_file', { path: 'x.txt', content: 'x' }, fixedApprover('rejected'))
    expect(code(result)).toBe('DENIED')
    expect(() => readFileSync(path.join(root, 'x.txt'))).toThrow()
  })
})

describe('shell', () => {
  it('K2.19: an allow-list rule allows the command and the command with plain arguments, never shell syntax', () => {
    expect(allowedCommand('npm test', ['npm test'])).toBe(true)
    expect(allowedCommand('  npm test -- --run  ', ['npm test'])).toBe(true)
    expect(allowedCommand('npm testing', ['npm test'])).toBe(false)
    expect(allowedCommand('npm run build', ['npm test'])).toBe(false)
    expect(allowedCommand('anything', [''])).toBe(false)
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom('n', 'p', 'm', ' ', '-') }),
        fc.constantFrom(...';&|`$()<>\n\\*?[]{}~#!"\''),
        fc.string({ unit: fc.constantFrom('r', 'm', ' ', '/') }),
        (start, syntax, end) => {
          expect(allowedCommand(`npm test${start}${syntax}${end}`, ['npm test', 'npm'])).toBe(false)
        },
      ),
    )
  })

  it('K1.9: the words of a command are read as sh splits them, values of name=value included, device paths left out', () => {
    expect(commandWords('cat ".env"|grep KEY')).toEqual(['cat', '.env', 'grep', 'KEY'])
    expect(commandWords('FILE=/etc/passwd node --out=../x run 2>/dev/null')).toEqual([
      'FILE=/etc/passwd',
      '/etc/passwd',
      'node',
      '--out=../x',
      '../x',
      'run',
      '2',
    ])
    expect(commandWords('(cd .. && ls)')).toEqual(['cd', '..', 'ls'])
  })

  it('K2.17: timeout_seconds must be a whole number from 1 to 600', async () => {
    for (const timeout_seconds of [0, 601, 1.5]) {
      const result = await call('shell', { command: 'true', timeout_seconds })
      expect(code(result)).toBe('INVALID_ARGS')
    }
    expect(text(await call('shell', { command: 'true', timeout_seconds: 600 }))).toBe('exit code 0')
  })

  it('K2.17: the command runs in the workspace root without the CLI model keys in its environment', async () => {
    const saved = process.env.OPENAI_API_KEY
    process.env.OPENAI_API_KEY = 'sk-should-not-leak'
    try {
      const result = await call('shell', { command: 'pwd; echo "key=$OPENAI_API_KEY"; exit 3' })
      expect(text(result)).toBe(`exit code 3\n${root}\nkey=`)
    } finally {
      if (saved === undefined) delete process.env.OPENAI_API_KEY
      else process.env.OPENAI_API_KEY = saved
    }
  })
})

describe('resumed durable asks', () => {
  it('K5.13: a recorded reason goes only to the call with its id and the arguments it asked about, once', async () => {
    const ledger = new ChangeLedger()
    const mine = { path: 'a.txt', content: 'mine' }
    const theirs = { path: 'a.txt', content: 'theirs' }
    ledger.expectShown('call_1', await argumentsDigest(mine), 'shown for mine')
    ledger.expectShown('call_1', await argumentsDigest(theirs), 'shown for theirs')
    expect(await ledger.takeShown('call_1', { path: 'a.txt', content: 'other' })).toBeUndefined()
    expect(await ledger.takeShown('call_2', mine)).toBeUndefined()
    expect(await ledger.takeShown('call_1', undefined)).toBeUndefined()
    expect(await ledger.takeShown('call_1', theirs)).toBe('shown for theirs')
    expect(await ledger.takeShown('call_1', mine)).toBe('shown for mine')
    expect(await ledger.takeShown('call_1', mine)).toBeUndefined()
  })
})
