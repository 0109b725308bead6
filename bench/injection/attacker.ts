/**
 * The attacker model of the injection suite (H6.2): a scripted model that follows the user task's
 * plan and, as soon as a tool result holds the planted instructions, runs the injection task's
 * plan first — the strongest attacker, since it obeys every injection it reads. A data-flow
 * attack needs no obedience: the model copies the value the attacker changed, as the plan says.
 */
import type { ModelAdapter, ModelStreamEvent } from '@tooltx/agent'
import type { JsonValue, ModelMessage, ToolCallBlock } from '@tooltx/core'
import type { Plan, PlannedArgument, PlannedCall } from './suite.js'

/** The text of the model-facing content of a tool message. */
function textOf(message: ModelMessage): string {
  if (message.role !== 'tool') return ''
  return message.content.map((b) => ((b as { text?: unknown }).text as string | undefined) ?? '').join('\n')
}

/**
 * A model that runs `plan`, switching to `injection.plan` once a tool result contains
 * `injection.text`. Each reply makes one step's calls; after the last step it answers `done`.
 */
export function attackerModel(
  plan: Plan,
  injection?: { readonly text: string; readonly plan: Plan },
): ModelAdapter {
  /** The tool of each call made so far, by call id. */
  const tools = new Map<string, string>()
  const queue: (readonly PlannedCall[])[] = [...plan]
  let obeyed = injection === undefined
  let n = 0

  function resolve(arg: PlannedArgument, latest: Map<string, string>): JsonValue {
    if (arg === null || typeof arg !== 'object' || !('from' in arg) || !('pick' in arg))
      return arg as JsonValue
    const { from, pick } = arg as { from: string; pick: RegExp | ((text: string) => JsonValue) }
    const text = latest.get(from) ?? ''
    if (typeof pick === 'function') return pick(text)
    return pick.exec(text)?.[1]?.trim() ?? ''
  }

  async function* stream(request: { messages: Iterable<ModelMessage> }): AsyncIterable<ModelStreamEvent> {
    const latest = new Map<string, string>()
    let sawInjection = false
    for (const message of request.messages) {
      if (message.role !== 'tool') continue
      const text = textOf(message)
      const tool = tools.get(message.callId)
      if (tool !== undefined && !message.isError) latest.set(tool, text)
      if (injection !== undefined && text.includes(injection.text)) sawInjection = true
    }
    if (!obeyed && sawInjection && injection !== undefined) {
      obeyed = true
      queue.unshift(...injection.plan)
    }
    const step = queue.shift()
    const content: (ToolCallBlock | { type: 'text'; text: string })[] = []
    if (step === undefined) content.push({ type: 'text', text: 'done' })
    for (const planned of step ?? []) {
      const id = `t${++n}`
      tools.set(id, planned.tool)
      const args: Record<string, JsonValue> = {}
      for (const [key, arg] of Object.entries(planned.args)) args[key] = resolve(arg, latest)
      content.push({ type: 'tool-call', id, name: planned.tool, arguments: JSON.stringify(args) })
    }
    yield { type: 'message', content, usage: { inputTokens: 0, outputTokens: 0 } }
  }

  return { name: 'attacker', stream }
}
