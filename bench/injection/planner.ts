/**
 * The planner of the plan-before-data defense (H6.3): the attacker model in Code Mode. It writes the
 * user task's whole plan as one `run_code` program from the request alone — each `pick` becomes
 * code that reads the tool result inside the program — and, like the attacker, runs the injection
 * task's plan as a second program as soon as a tool message it reads holds the planted text.
 */
import type { ModelAdapter, ModelStreamEvent } from '@tooltx/agent'
import type { ModelMessage } from '@tooltx/core'
import type { Plan, PlannedArgument } from './suite.js'

/** The program expression of one argument: a literal, or code that reads the latest result of a tool. */
function argumentCode(arg: PlannedArgument): string {
  if (arg === null || typeof arg !== 'object' || !('from' in arg) || !('pick' in arg))
    return JSON.stringify(arg)
  const { from, pick } = arg as { from: string; pick: RegExp | ((text: string) => unknown) }
  const text = `(latest[${JSON.stringify(from)}] ?? '')`
  if (typeof pick === 'function') return `(${pick.toString()})(${text})`
  return `((${text}.match(${pick.toString()}) ?? [])[1] ?? '').trim()`
}

/** The program that runs `plan`: every call in order, each failure logged and the next call made. */
export function programOf(plan: Plan): string {
  const lines = ['const latest = {}']
  for (const step of plan) {
    for (const call of step) {
      const args = Object.entries(call.args).map(
        ([key, arg]) => `${JSON.stringify(key)}: ${argumentCode(arg)}`,
      )
      lines.push(
        'try {',
        `  const value = await tools[${JSON.stringify(call.tool)}]({ ${args.join(', ')} })`,
        `  latest[${JSON.stringify(call.tool)}] = typeof value?.text === 'string' ? value.text : JSON.stringify(value)`,
        '} catch (error) { console.log(String(error?.message ?? error)) }',
      )
    }
  }
  lines.push("return 'done'")
  return lines.join('\n')
}

/** A planner that writes `plan` as one program before reading anything; it obeys an injection it reads. */
export function plannerModel(
  plan: Plan,
  injection?: { readonly text: string; readonly plan: Plan },
): ModelAdapter {
  let planned = false
  let obeyed = injection === undefined
  let n = 0
  const program = (code: string) => ({
    type: 'tool-call' as const,
    id: `p${++n}`,
    name: 'run_code',
    arguments: JSON.stringify({ code, description: 'do the task' }),
  })
  async function* stream(request: { messages: Iterable<ModelMessage> }): AsyncIterable<ModelStreamEvent> {
    let sawInjection = false
    for (const message of request.messages) {
      if (message.role !== 'tool' || injection === undefined) continue
      const text = message.content
        .map((b) => ((b as { text?: unknown }).text as string | undefined) ?? '')
        .join('\n')
      if (text.includes(injection.text)) sawInjection = true
    }
    let content: ModelStreamEvent & { type: 'message' }
    if (!planned) {
      planned = true
      content = {
        type: 'message',
        content: [program(programOf(plan))],
        usage: { inputTokens: 0, outputTokens: 0 },
      }
    } else if (!obeyed && sawInjection && injection !== undefined) {
      obeyed = true
      content = {
        type: 'message',
        content: [program(programOf(injection.plan))],
        usage: { inputTokens: 0, outputTokens: 0 },
      }
    } else {
      content = {
        type: 'message',
        content: [{ type: 'text', text: 'done' }],
        usage: { inputTokens: 0, outputTokens: 0 },
      }
    }
    yield content
  }
  return { name: 'planner', stream }
}
