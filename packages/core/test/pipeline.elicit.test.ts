/**
 * A body's own forms (P8.13–P8.19): `run.elicit(form)` checks the form, asks the input's
 * elicitation handler, checks its answer, and never hangs or rejects but for a malformed form.
 */
import {
  createToolRuntime,
  type ElicitForm,
  type Elicitor,
  type ElicitReply,
  type ElicitRequest,
  type RunContext,
} from '@tooltx/core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { fakeRuntime, outerCall, tool } from './code-mode.fixtures.js'
import { live, rawTool } from './pipeline.fixtures.js'

const FORM: ElicitForm = {
  message: 'Ship it?',
  requestedSchema: {
    type: 'object',
    properties: {
      colour: { type: 'string', enum: ['red', 'blue'] },
      copies: { type: 'integer', minimum: 1, maximum: 5 },
      note: { type: 'string', maxLength: 10 },
      email: { type: 'string', format: 'email' },
      when: { type: 'string', format: 'date' },
      urgent: { type: 'boolean', default: false },
      tags: {
        type: 'array',
        items: {
          anyOf: [
            { const: 'a', title: 'A' },
            { const: 'b', title: 'B' },
          ],
        },
        maxItems: 2,
      },
    },
    required: ['colour'],
  },
}

/** A runtime whose tool `t` asks `form` and answers with the reply; `extra` joins the execute input. */
function asking(form: unknown = FORM, reported: unknown[] = []) {
  const rt = createToolRuntime({ reportError: (e) => reported.push(e) })
  rt.register(rawTool('t', { execute: (_args: unknown, run: RunContext) => run.elicit(form as ElicitForm) }))
  return (extra: { elicit?: Elicitor; signal?: AbortSignal } = {}) =>
    rt.execute({ callId: 'c', name: 't', arguments: {}, signal: live(), ...extra })
}

/** The reply a call of `asking` answered with. */
async function replyOf(pending: ReturnType<ReturnType<typeof asking>>): Promise<ElicitReply> {
  const result = await pending
  if (result.isError) throw new Error(`the call failed: ${result.error.message}`)
  return result.value as ElicitReply
}

describe('P8.13–P8.19 run.elicit(form)', () => {
  it('P8.13 elicit is a method of the run context prototype, not an own property', async () => {
    let seen: RunContext | undefined
    const rt = createToolRuntime()
    rt.register(
      rawTool('t', {
        execute: (_a: unknown, run: RunContext) => {
          seen = run
        },
      }),
    )
    await rt.execute({ callId: 'c', name: 't', arguments: {}, signal: live() })
    expect(Object.hasOwn(seen!, 'elicit')).toBe(false)
    expect(typeof seen!.elicit).toBe('function')
  })

  it.each([
    [null, 'the form must be an object { message, requestedSchema }'],
    [{ message: '', requestedSchema: FORM.requestedSchema }, 'the form needs a "message"'],
    [{ message: 'x', requestedSchema: { type: 'array' } }, 'requestedSchema must be { type: "object"'],
    [
      {
        message: 'x',
        requestedSchema: { type: 'object', properties: { a: { type: 'object', properties: {} } } },
      },
      'requestedSchema.properties.a has no "type" a form field may have',
    ],
    [
      {
        message: 'x',
        requestedSchema: { type: 'object', properties: { a: { type: 'string', pattern: '^a' } } },
      },
      'requestedSchema.properties.a has "pattern", which a form field of type string may not have',
    ],
    [
      {
        message: 'x',
        requestedSchema: { type: 'object', properties: { a: { type: 'array', items: { type: 'number' } } } },
      },
      'requestedSchema.properties.a has "items" other than',
    ],
    [
      {
        message: 'x',
        requestedSchema: { type: 'object', properties: { a: { type: 'integer', default: 1.5 } } },
      },
      'requestedSchema.properties.a has a "default" that does not fit the field',
    ],
    [
      { message: 'x', requestedSchema: { type: 'object', properties: {}, required: ['b'] } },
      'requestedSchema.required must be an array of the names of its properties',
    ],
  ])(
    'P8.13 a form MCP does not allow fails the call with UNSUPPORTED_SCHEMA and asks nobody: %j',
    async (form, message) => {
      const asked: ElicitRequest[] = []
      const result = await asking(form)({
        elicit: (r) => {
          asked.push(r)
          return { action: 'decline' }
        },
      })
      expect(result.isError && result.error.info).toEqual({ name: 'SchemaError', code: 'UNSUPPORTED_SCHEMA' })
      expect(result.isError && result.error.message).toContain(`elicit: ${message}`)
      expect(asked).toEqual([])
    },
  )

  it('P8.13 a form that is not lossless JSON fails with RESULT_NOT_SERIALIZABLE', async () => {
    const result = await asking({
      message: 'x',
      requestedSchema: { type: 'object', properties: {}, extra: () => 1 },
    })()
    expect(result.isError && result.error.info.code).toBe('RESULT_NOT_SERIALIZABLE')
  })

  it('P8.14 P8.15 the handler gets the frozen request and its accept reaches the body', async () => {
    const asked: ElicitRequest[] = []
    const reply = await replyOf(
      asking()({
        elicit: (request) => {
          asked.push(request)
          return {
            action: 'accept',
            content: { colour: 'red', copies: 2, tags: ['a', 'b'], when: '2026-02-28' },
          }
        },
      }),
    )
    expect(reply).toEqual({
      action: 'accept',
      content: { colour: 'red', copies: 2, tags: ['a', 'b'], when: '2026-02-28' },
    })
    const [request] = asked
    expect(Object.isFrozen(request)).toBe(true)
    expect(Object.isFrozen(request!.requestedSchema)).toBe(true)
    expect({ ...request, signal: undefined }).toEqual({
      callId: 'c',
      rootCallId: 'c',
      name: 't',
      message: FORM.message,
      requestedSchema: FORM.requestedSchema,
      signal: undefined,
    })
    expect(request!.signal).toBeInstanceOf(AbortSignal)
  })

  it('P8.14 decline and cancel pass through; a cancel keeps its string reason', async () => {
    const call = asking()
    expect(await replyOf(call({ elicit: () => ({ action: 'decline' }) }))).toEqual({ action: 'decline' })
    expect(await replyOf(call({ elicit: async () => ({ action: 'cancel' }) }))).toEqual({ action: 'cancel' })
    expect(
      await replyOf(call({ elicit: () => ({ action: 'cancel', reason: 'closed the dialog' }) })),
    ).toEqual({
      action: 'cancel',
      reason: 'closed the dialog',
    })
  })

  it('P8.15 without a handler the body reads a cancel saying why; a failing handler is a cancel too', async () => {
    const call = asking()
    expect(await replyOf(call())).toEqual({
      action: 'cancel',
      reason:
        'no one can answer a form for this call: its host gave no elicitation handler (execute input "elicit")',
    })
    expect(
      await replyOf(
        call({
          elicit: () => {
            throw new Error('no terminal')
          },
        }),
      ),
    ).toEqual({ action: 'cancel', reason: "the host's elicitation handler failed: no terminal" })
  })

  it.each([
    [{ action: 'accept', content: { copies: 2 } }, 'colour is required'],
    [{ action: 'accept', content: { colour: 'green' } }, "colour must be one of the form's choices"],
    [{ action: 'accept', content: { colour: 'red', copies: 9 } }, 'copies must be at most 5'],
    [{ action: 'accept', content: { colour: 'red', copies: 1.5 } }, 'copies must be a whole number'],
    [
      { action: 'accept', content: { colour: 'red', note: 'far too long a note' } },
      'note must be at most 10 characters',
    ],
    [
      { action: 'accept', content: { colour: 'red', email: 'secret-not-an-address' } },
      'email must be an e-mail address',
    ],
    [{ action: 'accept', content: { colour: 'red', when: '2026-02-30' } }, 'when must be a date YYYY-MM-DD'],
    [{ action: 'accept', content: { colour: 'red', tags: ['a', 'a'] } }, 'tags must not repeat a choice'],
    [
      { action: 'accept', content: { colour: 'red', password: 'hunter2' } },
      'password is not a field of the form',
    ],
  ])(
    'P8.16 an answer that does not fit the form is a cancel naming the field, never the value: %j',
    async (answer, why) => {
      const reply = await replyOf(asking()({ elicit: () => answer as ElicitReply }))
      expect(reply).toEqual({ action: 'cancel', reason: `the answer did not fit the form: ${why}` })
      for (const value of Object.values(answer.content))
        if (typeof value === 'string' && value.length > 3)
          expect((reply as { reason: string }).reason).not.toContain(value)
    },
  )

  it('P8.16 whatever a handler answers, the body gets one of the three actions, and an accept fits the form', async () => {
    const call = asking()
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.anything(),
          fc.record({
            action: fc.constantFrom('accept', 'decline', 'cancel', 'other'),
            content: fc.anything(),
          }),
          fc.record({
            action: fc.constant('accept'),
            content: fc.dictionary(
              fc.constantFrom('colour', 'copies', 'urgent', 'tags', 'x'),
              fc.oneof(fc.constantFrom('red', 'blue', 3, true), fc.array(fc.constantFrom('a', 'b', 'c'))),
            ),
          }),
        ),
        async (answer) => {
          const reply = await replyOf(call({ elicit: () => answer as ElicitReply }))
          expect(['accept', 'decline', 'cancel']).toContain(reply.action)
          expect(Object.isFrozen(reply)).toBe(true)
          if (reply.action === 'accept') {
            expect('colour' in reply.content).toBe(true)
            for (const key of Object.keys(reply.content))
              expect(Object.keys(FORM.requestedSchema.properties)).toContain(key)
          }
        },
      ),
      { numRuns: 300 },
    )
  })

  it('P8.17 the call signal aborts the question: the body gets a cancel at once though the handler never answers', async () => {
    const controller = new AbortController()
    let asked: ElicitRequest | undefined
    const pending = replyOf(
      asking()({
        signal: controller.signal,
        elicit: (request) => {
          asked = request
          setTimeout(() => controller.abort(), 10)
          return new Promise<ElicitReply>(() => {})
        },
      }),
    )
    const result = await asking()({ signal: AbortSignal.abort(), elicit: () => ({ action: 'decline' }) })
    expect(result.isError && result.error.info.code).toBe('ABORTED_BEFORE_DISPATCH')
    await expect(pending).rejects.toThrow('the call failed')
    expect(asked!.signal.aborted).toBe(true)
  })

  it('P8.17 a body that catches the abort reads the cancel reason', async () => {
    const controller = new AbortController()
    const rt = createToolRuntime()
    let read: ElicitReply | undefined
    rt.register(
      rawTool('t', {
        execute: async (_a: unknown, run: RunContext) => {
          read = await run.elicit(FORM)
          return 'done'
        },
      }),
    )
    const result = rt.execute({
      callId: 'c',
      name: 't',
      arguments: {},
      signal: controller.signal,
      elicit: () => {
        queueMicrotask(() => controller.abort())
        return new Promise<ElicitReply>(() => {})
      },
    })
    expect((await result).isError).toBe(true)
    expect(read).toEqual({ action: 'cancel', reason: 'the call was aborted, so its form was not answered' })
  })

  it('P8.18 a Code Mode sub-call asks through the run_code call handler, with its own call id and the root id', async () => {
    const asked: ElicitRequest[] = []
    const rt = createToolRuntime({ mode: 'code' })
    rt.register(tool('pick', { execute: (_a: unknown, run: RunContext) => run.elicit(FORM) }))
    const code = fakeRuntime(async ({ tools }) => (await tools.pick!({})) as never)
    const result = await rt.execute(
      outerCall(code, {
        elicit: (request: ElicitRequest) => {
          asked.push(request)
          return { action: 'accept', content: { colour: 'blue' } }
        },
      }) as never,
    )
    expect(result.isError).toBe(false)
    expect(asked.map(({ callId, rootCallId, name }) => ({ callId, rootCallId, name }))).toEqual([
      { callId: 'o:code:1', rootCallId: 'o', name: 'pick' },
    ])
  })

  it('P8.19 neither the form nor the answer reaches reportError or the result unless the body puts it there', async () => {
    const reported: unknown[] = []
    const rt = createToolRuntime({ reportError: (e) => reported.push(e) })
    rt.register(
      rawTool('t', {
        execute: async (_a: unknown, run: RunContext) => (await run.elicit(FORM)).action,
      }),
    )
    const result = await rt.execute({
      callId: 'c',
      name: 't',
      arguments: {},
      signal: live(),
      elicit: () => ({ action: 'accept', content: { colour: 'red', note: 's3cret' } }),
    })
    expect(JSON.stringify(result)).not.toContain('s3cret')
    expect(result.isError === false && result.value).toBe('accept')
    expect(reported).toEqual([])
  })

  it('P8.15 an elicit input that is not a function is a malformed input (I1.2)', async () => {
    await expect(asking()({ elicit: 'yes' as never })).rejects.toMatchObject({
      code: 'INVARIANT',
      message: expect.stringContaining('execute input.elicit must be a function'),
    })
  })
})
