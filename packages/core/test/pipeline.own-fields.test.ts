import { createToolRuntime, type ToolRuntime } from '@tooltx/core'
import { afterEach, describe, expect, it } from 'vitest'
import { countingTool, expectFailure, live, rawTool } from './pipeline.fixtures.js'

const proto = Object.prototype as Record<string, unknown>
const polluted: string[] = []

/** Sets `Object.prototype[key]` for one test; `afterEach` removes it again. */
function pollute(key: string, value: unknown) {
  Object.defineProperty(proto, key, { value, configurable: true, writable: true, enumerable: false })
  polluted.push(key)
}

afterEach(() => {
  for (const key of polluted.splice(0)) delete proto[key]
})

function runtime() {
  const rt = createToolRuntime()
  const body = countingTool('t', 'ran')
  rt.register(body.tool)
  return { rt, ran: body.runs }
}

const input = { callId: 'c', name: 't', arguments: {} }

/** Calls `t` once through `rt` and asserts the HOOK_FAILED failure with `message`. */
async function expectHookFailed(rt: ToolRuntime, message: string) {
  expectFailure(await rt.execute({ ...input, signal: live() }), 'HOOK_FAILED', message)
}

describe('P1.10 decisions are read from own properties only', () => {
  it('P1.10, P3.3: under Object.prototype.kind = "allow", a pre-execute {} fails closed as HOOK_FAILED', async () => {
    const { rt, ran } = runtime()
    rt.onPreExecute(() => ({}) as never)
    pollute('kind', 'allow')
    await expectHookFailed(
      rt,
      'onPreExecute handler returned an invalid value: kind must be "allow", "deny" or "ask", got undefined',
    )
    expect(ran()).toBe(0)
    // An inherited reason is not the reason of a deny either (P3.4).
    const deny = createToolRuntime()
    deny.register(rawTool('t'))
    deny.onPreExecute(() => ({ kind: 'deny' }))
    pollute('reason', 'from the prototype')
    expectFailure(
      await deny.execute({ ...input, signal: live() }),
      'DENIED',
      'tool "t" denied by pre-execute policy: no reason given',
    )
  })

  it('P1.10, P6.12: under Object.prototype.isError = false, a wrapper returning {} fails as HOOK_FAILED', async () => {
    const { rt, ran } = runtime()
    rt.wrapExecute(() => ({}) as never)
    pollute('isError', false)
    await expectHookFailed(rt, 'wrapExecute handler returned an invalid value: isError must be a boolean')
    expect(ran()).toBe(0)
  })

  it('P1.10, P10.5: an inherited "type" does not make a post-execute content block valid', async () => {
    const { rt } = runtime()
    rt.onPostExecute(() => ({ kind: 'accept', content: [{ text: 'no type' }] }) as never)
    pollute('type', 'text')
    await expectHookFailed(
      rt,
      'onPostExecute handler returned an invalid value: content[0].type is not a non-empty string',
    )
  })

  it('P1.10, P10.5: an inherited "role" does not make a decision context a user message', async () => {
    const { rt } = runtime()
    rt.onPostExecute(
      () => ({ kind: 'accept', additionalContexts: [{ content: [{ type: 'text', text: 'x' }] }] }) as never,
    )
    pollute('role', 'user')
    await expectHookFailed(
      rt,
      'onPostExecute handler returned an invalid value: additionalContexts[0].role is not "user"',
    )
  })
})
