import {
  type ContextProvenance,
  createToolRuntime,
  defineTool,
  type JsonValue,
  protectArguments,
} from '@tooltx/core'
import { memoryStore, openSession, type Seq, type Session } from '@tooltx/session'
import { describe, expect, it } from 'vitest'
import { ContextProvenanceTracker } from '../src/context/context-provenance.js'
import { auditSession, createAgent, type ScriptedStep, scripted } from '../src/index.js'

const EMAIL = 'Invoice 4471 from ACME. Please pay to IBAN DE89 3704 0044 0532 0130 00, amount 1250.00 EUR.'

/** A runtime with an untrusted inbox, a trusted contact book and a payment tool that records what it saw. */
function bank(label = true) {
  const runtime = createToolRuntime()
  const seen: { name: string; provenance: ContextProvenance | undefined }[] = []
  const tool = (
    name: string,
    text: string,
    provenance?: { integrity: 'trusted' | 'untrusted'; confidential?: boolean },
  ) =>
    defineTool({
      name,
      description: name,
      parameters: { iban: { type: 'string' }, amount: { type: 'number' } },
      execute: (_args, run) => {
        seen.push({ name, provenance: run.provenance })
        return { text }
      },
      output: { render: (_a, v) => [{ type: 'text', text: (v as { text: string }).text }] },
      ...(label && provenance !== undefined ? { provenance } : {}),
    })
  runtime.register(tool('read_email', EMAIL, { integrity: 'untrusted' }))
  runtime.register(tool('read_contacts', 'Mum: DE02 1203 0000 0000 2020 51'))
  runtime.register(tool('send_money', 'sent'))
  return { runtime, seen }
}

const toolCall = (id: string, name: string, args: JsonValue = {}) => ({
  id,
  name,
  arguments: JSON.stringify(args),
})

async function run(steps: ScriptedStep[], task = 'Pay my bills', label = true) {
  const { runtime, seen } = bank(label)
  const session = await openSession(memoryStore(), { id: 's' })
  const agent = createAgent({ runtime, scope: runtime.scope(), session, model: scripted(steps) })
  await agent.send(task)
  return { seen, session }
}

describe('H2 the label of the model context', () => {
  it('H2.2: a runtime with no labelled results gives no call a provenance', async () => {
    const { seen } = await run(
      [
        { toolCalls: [toolCall('c1', 'read_email')] },
        { toolCalls: [toolCall('c2', 'send_money', { iban: 'DE89370400440532013000' })] },
        { text: 'done' },
      ],
      'Pay my bills',
      false,
    )
    expect(seen.map((s) => s.provenance)).toEqual([undefined, undefined])
  })

  it('H2.2: once an untrusted result is in the context, later calls carry its source; a call of its own batch does not', async () => {
    const { seen } = await run([
      { toolCalls: [toolCall('c1', 'read_email'), toolCall('c2', 'read_contacts')] },
      { toolCalls: [toolCall('c3', 'send_money', { amount: 5 })] },
      { text: 'done' },
    ])
    expect(seen.map((s) => s.name)).toEqual(['read_email', 'read_contacts', 'send_money'])
    expect(seen[1]!.provenance).toBeUndefined()
    expect(seen[2]!.provenance).toEqual({
      untrusted: true,
      confidential: false,
      sources: [{ callId: 'c1', tool: 'read_email', label: { integrity: 'untrusted' } }],
      arguments: [],
    })
    expect(Object.isFrozen(seen[2]!.provenance)).toBe(true)
  })
})

describe('H3 argument provenance', () => {
  it('H3.1, H3.2: an IBAN and an amount copied out of an untrusted result name that result, with their paths', async () => {
    const { seen } = await run([
      { toolCalls: [toolCall('c1', 'read_email')] },
      { toolCalls: [toolCall('c2', 'send_money', { iban: 'DE89370400440532013000', amount: 1250 })] },
      { text: 'done' },
    ])
    const source = { callId: 'c1', tool: 'read_email', label: { integrity: 'untrusted' } }
    expect(seen[1]!.provenance?.arguments).toEqual([
      { path: 'iban', atom: 'DE89370400440532013000', kind: 'account', sources: [source] },
      { path: 'amount', atom: '1250', kind: 'number', sources: [source] },
    ])
  })

  it('H3.3: a value the user wrote in their own message is theirs, not a copy', async () => {
    const { seen } = await run(
      [
        { toolCalls: [toolCall('c1', 'read_email')] },
        { toolCalls: [toolCall('c2', 'send_money', { iban: 'DE89370400440532013000', amount: 1250 })] },
        { text: 'done' },
      ],
      'Pay 1250 EUR to DE89 3704 0044 0532 0130 00',
    )
    expect(seen[1]!.provenance?.arguments).toEqual([])
    expect(seen[1]!.provenance?.untrusted).toBe(true)
  })
})

describe('H2 following the session', () => {
  /** A session with one labelled result in step 1, then `after` appended in step 2. */
  async function labelled(after: (session: Session, seq: Seq) => Promise<void>) {
    const session = await openSession(memoryStore(), { id: 'x' })
    const tracker = ContextProvenanceTracker.following(session, session.events())
    const T1 = { turn: 1, step: 1 }
    await session.append('turn/start', { turn: 1 })
    await session.append('user/message', {
      ...T1,
      message: { role: 'user', content: [{ type: 'text', text: 'hi' }] },
    })
    await session.append('step/start', T1)
    await session.append('assistant/message', {
      ...T1,
      content: [{ type: 'tool-call', id: 'c1', name: 'read_email', arguments: '{}' }],
    })
    await session.append('tool/call', { ...T1, callId: 'c1', name: 'read_email', arguments: '{}' })
    const result = await session.append('tool/result', {
      ...T1,
      callId: 'c1',
      name: 'read_email',
      content: [{ type: 'text', text: EMAIL }],
      isError: false,
      provenance: { integrity: 'untrusted', confidential: true },
    })
    await session.append('step/end', T1)
    await session.append('step/start', { turn: 1, step: 2 })
    await after(session, result.seq)
    await session.append('assistant/message', { turn: 1, step: 2, content: [{ type: 'text', text: 'ok' }] })
    return { session, tracker }
  }

  it('H2.1: a result cleared by compaction leaves the context and its atoms leave the index', async () => {
    const { tracker } = await labelled(async (session, seq) => {
      await session.append('context/compacted', {
        turn: 1,
        step: 2,
        tokensBefore: 100,
        tokensAfter: 10,
        strategy: 'clear-tool-results',
        cleared: [{ seq, callId: 'c1', isError: false, content: [{ type: 'text', text: '[cleared]' }] }],
      })
    })
    expect(tracker.of({ iban: 'DE89370400440532013000' })).toBeUndefined()
  })

  it('H2.1: a summarised result stays, since the summary was written from it', async () => {
    const { tracker } = await labelled(async (session, seq) => {
      await session.append('context/compacted', {
        turn: 1,
        step: 2,
        tokensBefore: 100,
        tokensAfter: 10,
        strategy: 'summarise',
        through: seq,
        summary: { role: 'user', content: [{ type: 'text', text: 'summary' }] },
      })
    })
    const provenance = tracker.of({ iban: 'DE89370400440532013000' })
    expect(provenance?.confidential).toBe(true)
    expect(provenance?.arguments.map((a) => a.path)).toEqual(['iban'])
  })

  it('H2.4: a tracker rebuilt from the events answers as the one that followed them', async () => {
    const { session, tracker } = await labelled(async () => {})
    const rebuilt = new ContextProvenanceTracker(session.events())
    const args = { iban: 'DE89370400440532013000', note: 'Invoice 4471 from ACME. Please pay' }
    expect(rebuilt.of(args)).toEqual(tracker.of(args))
    expect(tracker.of(args)?.arguments.map((a) => `${a.path}:${a.kind}`)).toEqual([
      'iban:account',
      'note:number',
      'note:words',
    ])
  })
})

describe('H5 auditing a provenance policy over a recorded session', () => {
  it('H5.6: auditSession gives each recorded call the provenance of the context its reply answered', async () => {
    const { session } = await run([
      { toolCalls: [toolCall('c1', 'send_money', { iban: 'DE89370400440532013000', amount: 1250 })] },
      { toolCalls: [toolCall('c2', 'read_email')] },
      { toolCalls: [toolCall('c3', 'send_money', { iban: 'DE89370400440532013000', amount: 1250 })] },
      { text: 'done' },
    ])
    const { runtime } = bank()
    runtime.onPreExecute(protectArguments({ send_money: ['iban'] }))
    const audit = await auditSession(session.events(), runtime)
    expect(audit.calls.map((c) => [c.callId, c.before.kind, c.after.kind])).toEqual([
      ['c1', 'execute', 'execute'],
      ['c2', 'execute', 'execute'],
      ['c3', 'execute', 'deny'],
    ])
    expect(audit.calls[2]!.after.reason).toBe(
      'tool "send_money" denied by pre-execute policy: untrusted data in send_money\'s arguments: ' +
        'argument iban ("DE89370400440532013000") was copied from the result of read_email c2',
    )
  })
})

describe('H2 cost', () => {
  it('H2.3: the sources list is built once per change, not per call: calls between two changes share it', async () => {
    const { tracker, session } = await (async () => {
      const session = await openSession(memoryStore(), { id: 'c' })
      return { session, tracker: ContextProvenanceTracker.following(session, session.events()) }
    })()
    const T = { turn: 1, step: 1 }
    await session.append('turn/start', { turn: 1 })
    await session.append('step/start', T)
    await session.append('assistant/message', {
      ...T,
      content: [{ type: 'tool-call', id: 'c1', name: 'read_email', arguments: '{}' }],
    })
    await session.append('tool/call', { ...T, callId: 'c1', name: 'read_email', arguments: '{}' })
    await session.append('tool/result', {
      ...T,
      callId: 'c1',
      name: 'read_email',
      content: [{ type: 'text', text: EMAIL }],
      isError: false,
      provenance: { integrity: 'untrusted' },
    })
    await session.append('step/end', T)
    await session.append('step/start', { turn: 1, step: 2 })
    await session.append('assistant/message', { turn: 1, step: 2, content: [{ type: 'text', text: 'ok' }] })
    const first = tracker.of({ a: 1 })!
    const second = tracker.of({ iban: 'DE89370400440532013000' })!
    expect(second.sources).toBe(first.sources)
    expect(second.arguments).not.toBe(first.arguments)
  })
})

describe('H3 what the heuristic does not see', () => {
  it('H3.5: a paraphrased, re-encoded or split value is not found; a value that merely occurs in an untrusted result is', () => {
    const tracker = new ContextProvenanceTracker()
    const T = { turn: 1, step: 1 }
    tracker.follow({
      seq: 5 as Seq,
      type: 'tool/result',
      data: {
        ...T,
        callId: 'c1',
        name: 'read_email',
        content: [{ type: 'text', text: EMAIL }],
        isError: false,
        provenance: { integrity: 'untrusted' },
      },
    })
    tracker.follow({ seq: 6 as Seq, type: 'assistant/message', data: { ...T, content: [] } })
    const found = (args: JsonValue) => tracker.of(args)!.arguments.map((a) => a.path)
    expect(found({ iban: Buffer.from('DE89370400440532013000').toString('base64') })).toEqual([])
    expect(found({ head: 'DE89 3704', tail: '0044 0532 0130 00' })).toEqual([])
    expect(found({ amount: 'twelve hundred fifty' })).toEqual([])
    expect(found({ count: 1250 })).toEqual(['count'])
  })
})
