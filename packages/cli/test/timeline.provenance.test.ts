import { createAgent, scripted } from '@tooltx/agent'
import { createToolRuntime, defineTool } from '@tooltx/core'
import { memoryStore, openSession } from '@tooltx/session'
import { describe, expect, it } from 'vitest'
import { renderSession } from '../src/session-timeline.js'

describe('H1 labels in the timeline', () => {
  it('H1.6: replay marks an untrusted or confidential result; a trusted or unlabelled one carries no mark', async () => {
    const runtime = createToolRuntime()
    const scope = runtime.scope()
    const tool = (
      name: string,
      provenance?: { integrity: 'trusted' | 'untrusted'; confidential?: boolean },
    ) =>
      defineTool({
        name,
        description: name,
        parameters: {},
        execute: () => 'x',
        ...(provenance ? { provenance } : {}),
      })
    scope.register(tool('inbox', { integrity: 'untrusted', confidential: true }))
    scope.register(tool('web', { integrity: 'untrusted' }))
    scope.register(tool('vault', { integrity: 'trusted', confidential: true }))
    scope.register(tool('docs', { integrity: 'trusted' }))
    scope.register(tool('clock'))
    const session = await openSession(memoryStore(), { id: 's' })
    const calls = ['inbox', 'web', 'vault', 'docs', 'clock'].map((name) => ({
      id: name,
      name,
      arguments: '{}',
    }))
    const agent = createAgent({
      runtime,
      scope,
      session,
      model: scripted([{ toolCalls: calls }, { text: 'done' }]),
    })
    await agent.send('go')
    const marks = renderSession(session.events()).filter((line) => line.startsWith('    ✓'))
    expect(marks).toEqual([
      '    ✓ inbox [untrusted, confidential]',
      '    ✓ web [untrusted]',
      '    ✓ vault [confidential]',
      '    ✓ docs',
      '    ✓ clock',
    ])
  })
})
