/**
 * K2.26: a usage error is its one line, in tooltx's words, then where the command's help is;
 * Node's option-parser text never reaches the person.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { main } from '../src/cli.js'
import { keptOutput } from './viewer-fixtures.js'

/** What `tooltx <args>` prints and its exit status, run in this process. */
async function tooltxHere(...args: string[]): Promise<{ code: number; lines: string[] }> {
  const out = keptOutput()
  const code = await main(args, out, {})
  return { code, lines: out.lines.flatMap((line) => line.split('\n')) }
}

describe('K2.26 usage errors', () => {
  it('K2.26: the option parser’s mistakes are said in our words, each followed by where the help is', async () => {
    const cases: [string[], string][] = [
      [['sessions', '--bogus'], 'tooltx: sessions has no option --bogus'],
      [['sessions', '-x'], 'tooltx: sessions has no option -x'],
      [['replay', 'latest', '--db'], 'tooltx: --db needs a value: --db VALUE'],
      [
        ['replay', 'latest', '--db', '--follow'],
        'tooltx: --db needs a value, got the option "--follow"; write --db=--follow if that is the value',
      ],
      [['replay', 'latest', '--follow=yes'], 'tooltx: --follow is a switch and takes no value, got "yes"'],
      [['run', 'hi', '--mode', 'fast'], 'tooltx: --mode must be native, code or both, got "fast"'],
    ]
    for (const [args, message] of cases) {
      const result = await tooltxHere(...args)
      expect({ args, ...result }).toEqual({ args, code: 2, lines: [message, `see tooltx ${args[0]} --help`] })
    }
    expect(await tooltxHere('frobnicate')).toEqual({
      code: 2,
      lines: ['tooltx: unknown command "frobnicate"', 'see tooltx --help'],
    })
  })

  it('K2.26: any unknown flag is a two-line usage error naming it, never Node’s text', async () => {
    await fc.assert(
      fc.asyncProperty(fc.stringMatching(/^[a-z][a-z-]{0,12}$/), async (name) => {
        fc.pre(!['db', 'help'].includes(name))
        const result = await tooltxHere('sessions', `--${name}`)
        expect(result).toEqual({
          code: 2,
          lines: [`tooltx: sessions has no option --${name}`, 'see tooltx sessions --help'],
        })
      }),
      { numRuns: 50 },
    )
  })
})
