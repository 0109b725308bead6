/**
 * A tool run by an agent asks the person a form of its own (P8.20): `createAgent({ onElicit })`
 * answers `run.elicit`, an abort of the turn cancels the question, and the session records the
 * call and its result but nothing of the form or its answer that the body did not return.
 */
import type { Elicitor, ElicitReply, ElicitRequest, RunContext } from '@tooltx/core'
import { defineTool } from '@tooltx/core'
import { describe, expect } from 'vitest'
import { eventually, firstResult, go, it, type Rig, textOutput } from './loop-harness.js'

const FORM = {
  message: 'Deploy which region?',
  requestedSchema: {
    type: 'object' as const,
    properties: {
      region: { type: 'string' as const, enum: ['eu', 'us'] },
      otp: { type: 'string' as const, title: 'One-time password' },
    },
    required: ['region'],
  },
}

/** Registers `deploy`, whose body asks FORM and answers with the region or what it read instead. */
function deployTool(r: Rig) {
  r.scope.register(
    defineTool({
      name: 'deploy',
      description: 'Deploys to a region the person picks.',
      parameters: {},
      output: textOutput,
      execute: async (_args, run: RunContext) => {
        const reply: ElicitReply = await run.elicit(FORM)
        if (reply.action === 'accept') return `deployed to ${String(reply.content.region)}`
        return reply.action === 'cancel'
          ? `not deployed: ${reply.reason ?? 'cancelled'}`
          : 'not deployed: declined'
      },
    }),
  )
}

const steps = [{ toolCalls: [{ id: 'c1', name: 'deploy', arguments: '{}' }] }, { text: 'done' }]

describe('P8.20 createAgent({ onElicit }) answers the forms of tool bodies', () => {
  it('P8.20 the handler gets the call and the form; the body reads its answer; nothing secret is recorded', async ({
    r,
  }) => {
    deployTool(r)
    const asked: ElicitRequest[] = []
    const onElicit: Elicitor = (request) => {
      asked.push(request)
      return { action: 'accept', content: { region: 'eu', otp: 'otp-271828' } }
    }
    const { agent } = go(r, steps, { onElicit })
    await agent.whenIdle()
    expect(asked.map(({ callId, name, message }) => ({ callId, name, message }))).toEqual([
      { callId: 'c1', name: 'deploy', message: FORM.message },
    ])
    expect(firstResult(r.session)).toMatchObject({
      callId: 'c1',
      content: [{ type: 'text', text: 'deployed to eu' }],
    })
    expect(JSON.stringify(r.session.events())).not.toContain('otp-271828')
  })

  it('P8.20 without onElicit the body reads a cancel saying no one can answer', async ({ r }) => {
    deployTool(r)
    const { agent } = go(r, steps)
    await agent.whenIdle()
    expect(firstResult(r.session)).toMatchObject({
      content: [
        {
          type: 'text',
          text: 'not deployed: no one can answer a form for this call: its host gave no elicitation handler (execute input "elicit")',
        },
      ],
    })
  })

  it('P8.20 aborting the turn aborts the question the person has not answered', async ({ r }) => {
    deployTool(r)
    let question: ElicitRequest | undefined
    const { agent } = go(r, steps, {
      onElicit: (request) => {
        question = request
        return new Promise<ElicitReply>(() => {})
      },
    })
    await eventually(() => question !== undefined, 'the form was asked')
    agent.abort()
    await agent.whenIdle()
    expect(question!.signal.aborted).toBe(true)
    expect(r.session.events().at(-1)).toMatchObject({ type: 'turn/end', data: { reason: 'aborted' } })
  })

  it('P8.20 an onElicit that is not a function is refused by createAgent', async ({ r }) => {
    expect(() => go(r, steps, { onElicit: 'ask' as never })).toThrow(
      'onElicit must be a function (request) => { action, content? }',
    )
  })
})
