import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  type ApprovalRequest,
  askWhenUntrusted,
  type ContextProvenance,
  createToolRuntime,
  type JsonValue,
  noConfidentialInto,
  type PreExecuteHandler,
  type ProvenanceSource,
  protectArguments,
} from '../src/index.js'
import { AtomIndex, MAX_ORIGIN_SOURCES } from '../src/provenance/atom-index.js'
import { textAtoms } from '../src/provenance/atoms.js'
import { rawTool } from './pipeline.fixtures.js'

const EMAIL =
  'From: billing@acme.example. Pay to DE89 3704 0044 0532 0130 00 by Friday, see https://acme.example/inv/4471.'
const email: ProvenanceSource = { callId: 'c12', tool: 'read_email', label: { integrity: 'untrusted' } }
const secret: ProvenanceSource = {
  callId: 'c7',
  tool: 'read_secrets',
  label: { integrity: 'trusted', confidential: true },
}

/** The provenance the agent loop would give a call with `args`, the context holding `sources`. */
function provenanceOf(
  args: JsonValue,
  entries: [ProvenanceSource, string][],
  user: string[] = [],
): ContextProvenance {
  const index = new AtomIndex()
  for (const [source, text] of entries) index.add(source, [text])
  index.vouch(user)
  const labels = entries.map(([s]) => s.label)
  return {
    untrusted: labels.some((l) => l.integrity === 'untrusted'),
    confidential: labels.some((l) => l.confidential === true),
    sources: entries.map(([s]) => s),
    arguments: index.origins(args),
  }
}

/** Runs one call through a runtime with `policy`, recording what the approver was asked. */
async function decide(
  policy: PreExecuteHandler,
  name: string,
  args: JsonValue,
  provenance?: ContextProvenance,
) {
  const asked: ApprovalRequest[] = []
  const rt = createToolRuntime({
    approver: (request) => {
      asked.push(request)
      return 'rejected'
    },
  })
  for (const tool of ['send_money', 'send_email', 'read_email']) rt.register(rawTool(tool))
  rt.onPreExecute(policy)
  const result = await rt.execute({
    callId: 'c13',
    name,
    arguments: args,
    signal: new AbortController().signal,
    ...(provenance === undefined ? {} : { provenance }),
  })
  return { result, asked, message: result.isError ? result.error.message : 'ran' }
}

describe('H5 provenance policies', () => {
  it('H5.1, H5.4: a protected argument copied from an untrusted result is denied with the evidence', async () => {
    const args = { iban: 'DE89370400440532013000', amount: 10 }
    const { message } = await decide(
      protectArguments({ send_money: ['iban'] }),
      'send_money',
      args,
      provenanceOf(args, [[email, EMAIL]]),
    )
    expect(message).toBe(
      'tool "send_money" denied by pre-execute policy: untrusted data in send_money\'s arguments: ' +
        'argument iban ("DE89370400440532013000") was copied from the result of read_email c12',
    )
  })

  it('H5.1: unprotected arguments, other tools, a user-vouched value and a call without provenance pass', async () => {
    const policy = protectArguments({ send_money: ['iban'] })
    const args = { iban: 'DE89370400440532013000', memo: 'billing@acme.example' }
    expect((await decide(policy, 'send_email', args, provenanceOf(args, [[email, EMAIL]]))).message).toBe(
      'ran',
    )
    const memo = { iban: 'DE02120300000000202051', memo: 'billing@acme.example' }
    expect((await decide(policy, 'send_money', memo, provenanceOf(memo, [[email, EMAIL]]))).message).toBe(
      'ran',
    )
    const vouched = provenanceOf(args, [[email, EMAIL]], ['pay DE89 3704 0044 0532 0130 00 please'])
    expect((await decide(policy, 'send_money', args, vouched)).message).toBe('ran')
    expect((await decide(policy, 'send_money', args)).message).toBe('ran')
  })

  it('H5.1, H5.4: with action ask the approver sees the evidence as the reason', async () => {
    const args = { recipient: 'billing@acme.example' }
    const { asked, message } = await decide(
      protectArguments({ send_email: '*' }, { action: 'ask' }),
      'send_email',
      args,
      provenanceOf(args, [[email, EMAIL]]),
    )
    expect(asked.map((a) => a.reason)).toEqual([
      'untrusted data in send_email\'s arguments: argument recipient ("billing@acme.example") was copied from the result of read_email c12',
    ])
    expect(message).toBe('the user rejected tool "send_email"')
  })

  it('H5.2: a consequential tool asks once the context holds untrusted data, naming the sources', async () => {
    const policy = askWhenUntrusted(['send_money'])
    const args = { amount: 10 }
    const { asked } = await decide(policy, 'send_money', args, provenanceOf(args, [[email, EMAIL]]))
    expect(asked.map((a) => a.reason)).toEqual(['the context holds untrusted results (read_email c12)'])
    expect((await decide(policy, 'send_money', args, provenanceOf(args, [[secret, 'x']]))).asked).toEqual([])
    expect((await decide(policy, 'read_email', args, provenanceOf(args, [[email, EMAIL]]))).asked).toEqual([])
  })

  it('H5.3: confidential data never goes into a sink tool', async () => {
    const policy = noConfidentialInto(['send_email'])
    const args = { body: 'the key is sk-live-99887766554433' }
    const { message } = await decide(
      policy,
      'send_email',
      args,
      provenanceOf(args, [[secret, 'API key: sk-live-99887766554433']]),
    )
    expect(message).toBe(
      'tool "send_email" denied by pre-execute policy: confidential data would leave through send_email: ' +
        'argument body ("99887766554433") was copied from the result of read_secrets c7',
    )
  })

  it("H5.4: an inner deny wins over a policy's ask", async () => {
    const rt = createToolRuntime({ approver: () => 'allowed-once' })
    rt.register(rawTool('send_money'))
    rt.onPreExecute(askWhenUntrusted(['send_money']))
    rt.onPreExecute(() => ({ kind: 'deny', reason: 'frozen account' }))
    const args = { amount: 10 }
    const result = await rt.execute({
      callId: 'c',
      name: 'send_money',
      arguments: args,
      signal: new AbortController().signal,
      provenance: provenanceOf(args, [[email, EMAIL]]),
    })
    expect(result.isError && result.error.message).toBe(
      'tool "send_money" denied by pre-execute policy: frozen account',
    )
  })

  it('H5.1: malformed rules and actions throw INVALID_DEFINITION', () => {
    expect(() => protectArguments({ send_money: 'iban' as never })).toThrow(
      'protectArguments rule for "send_money" takes an array of tool names',
    )
    expect(() => protectArguments({}, { action: 'warn' as never })).toThrow(
      "protectArguments action must be 'deny' or 'ask'",
    )
    expect(() => askWhenUntrusted('send_money' as never)).toThrow(
      'askWhenUntrusted takes an array of tool names',
    )
    expect(() => noConfidentialInto(['x'], { action: 'allow' as never })).toThrow(
      "noConfidentialInto action must be 'deny' or 'ask'",
    )
  })
})

const word = fc.stringMatching(/^[a-z]{1,8}$/)
const group = fc.stringMatching(/^[0-9]{4}$/)
/** An attacker's value: how it reads in the untrusted text, and how a model would copy it into an argument. */
const planted = fc.oneof(
  fc.tuple(word, word).map(([user, host]) => ({
    inText: `${user}@${host}.example`,
    copied: `${user}@${host}.example` as JsonValue,
  })),
  fc
    .tuple(fc.stringMatching(/^[A-Z]{2}[0-9]{2}$/), fc.array(group, { minLength: 3, maxLength: 6 }))
    .map(([head, groups]) => ({
      inText: [head, ...groups].join(' '),
      copied: [head, ...groups].join('') as JsonValue,
    })),
  fc.tuple(word, word).map(([host, path]) => ({
    inText: `https://${host}.example/${path}`,
    copied: `https://${host}.example/${path}` as JsonValue,
  })),
  fc
    .integer({ min: 100, max: 10_000_000 })
    .map((n) => ({ inText: n.toLocaleString('en-US'), copied: n as JsonValue })),
)

describe('H5 property', () => {
  it('H5.5: wherever an injection plants a value, a protected argument holding a copy of it is denied with that evidence', async () => {
    await fc.assert(
      fc.asyncProperty(
        planted,
        fc.array(word, { maxLength: 12 }),
        fc.array(word, { maxLength: 12 }),
        fc.constantFrom('.', ',', '', '!'),
        fc.array(fc.tuple(word, fc.array(word, { maxLength: 20 })), { maxLength: 4 }),
        fc.oneof(fc.constant('leaf'), fc.constant('sentence'), fc.constant('nested')),
        async (value, before, after, punctuation, others, shape) => {
          const text = [...before, value.inText + punctuation, ...after].join(' ')
          const entries: [ProvenanceSource, string][] = others.map(([id, words], i) => [
            { callId: `o${i}${id}`, tool: 'web_fetch', label: { integrity: 'untrusted' } },
            words.join(' '),
          ])
          entries.splice(Math.min(entries.length, before.length % 5), 0, [email, text])
          const copy =
            shape === 'leaf' || typeof value.copied === 'number'
              ? value.copied
              : shape === 'sentence'
                ? `please use ${value.copied} today`
                : { to: [{ value: value.copied }] }
          const args = { iban: copy, memo: 'thanks' }
          const { message } = await decide(
            protectArguments({ send_money: ['iban'] }),
            'send_money',
            args,
            provenanceOf(args, entries),
          )
          expect(message).toContain("untrusted data in send_money's arguments: argument iban")
          expect(message).toContain('read_email c12')
        },
      ),
      { numRuns: 300 },
    )
  })

  it('H3.2: atoms of a text are normalized: separators out of accounts and numbers, e-mail lowercased', () => {
    const atoms = textAtoms(
      'Mail ME@Acme.Example, pay DE89 3704 0044 0532 0130 00 the sum of 1,250.00 via https://acme.example/pay.',
    )
    expect(atoms.filter((a) => a.kind !== 'words')).toEqual([
      { kind: 'email', text: 'me@acme.example' },
      { kind: 'url', text: 'https://acme.example/pay' },
      { kind: 'account', text: 'DE89370400440532013000' },
      { kind: 'number', text: '1250' },
    ])
  })
})

describe('H3 atoms of hostile text', () => {
  it('H3.6: atom extraction never throws and stays linear on text built to make patterns backtrack', () => {
    const n = 1 << 18
    const hostile = [
      `${'a'.repeat(n)}@`,
      `a@${'b'.repeat(n)}`,
      '@b'.repeat(n / 2),
      `a@${'b.'.repeat(n / 2)}`,
      '1-'.repeat(n / 2),
      'DE12 '.repeat(n / 5),
      'http://'.repeat(n / 7),
    ]
    // Quadratic backtracking on 256 KiB would take minutes: finishing is the check.
    for (const text of hostile) expect(Array.isArray(textAtoms(text))).toBe(true)
    expect(textAtoms(`${'a'.repeat(100)}@mail.example`)).toContainEqual({
      kind: 'email',
      text: `${'a'.repeat(64)}@mail.example`,
    })
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (text) => {
        for (const atom of textAtoms(text)) expect(atom.text.length).toBeGreaterThan(0)
      }),
    )
  })
})

describe('H3 the atom index', () => {
  it('H3.1, H3.4: an origin names at most MAX_ORIGIN_SOURCES sources, the latest, in entry order; a removed result leaves', () => {
    const index = new AtomIndex()
    const sources = Array.from(
      { length: 40 },
      (_, i): ProvenanceSource => ({ callId: `c${i}`, tool: 'web', label: { integrity: 'untrusted' } }),
    )
    for (const source of sources) index.add(source, ['write to help@desk.example today'])
    const [origin] = index.origins({ to: 'help@desk.example' })
    expect(origin!.sources.map((s) => s.callId)).toEqual(
      sources.slice(-MAX_ORIGIN_SOURCES).map((s) => s.callId),
    )
    for (const source of sources) index.remove(source)
    expect(index.origins({ to: 'help@desk.example' })).toEqual([])
    expect(index.empty).toBe(true)
  })
})
