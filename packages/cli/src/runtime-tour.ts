import { type ToolResult, toModelSchema } from '@tooltx/core'
import type { Output } from './display/output.js'
import { wrapLine } from './display/wrap.js'
import { createToolset, fixedApprover } from './toolset.js'

/** One call the tour makes straight through the runtime, and what it shows. */
interface TourCall {
  label: string
  name: string
  arguments: unknown
  approver?: 'allowed-once' | 'rejected'
}

const CALLS: readonly TourCall[] = [
  { label: 'valid arguments', name: 'read_file', arguments: { path: 'src/pricing.ts', limit: 2 } },
  { label: 'invalid arguments (validated before the body)', name: 'read_file', arguments: { path: 42 } },
  { label: 'a guard denial', name: 'read_file', arguments: { path: '.env' } },
  {
    label: 'an ask, rejected by the approver',
    name: 'write_note',
    arguments: { name: 'x.md', text: 'x' },
    approver: 'rejected',
  },
  { label: 'a timeout (the child process is killed)', name: 'run_check', arguments: { check: 'slow-check' } },
  { label: 'an unknown tool', name: 'delete_everything', arguments: {} },
]

/** A result as one line of JSON, long texts shortened so the shape stays readable. */
function compact(result: ToolResult): string {
  return JSON.stringify(result, (_key, value) =>
    typeof value === 'string' && value.length > 60 ? `${value.slice(0, 57)}…` : value,
  )
}

/**
 * Calls the workspace tools directly through the runtime — no model, no agent, no log — and
 * prints each frozen result as JSON, plus one model-facing schema: what the runtime itself
 * guarantees, whatever loop drives it. At a terminal, long lines wrap at its width.
 */
export async function runtimeTour(out: Output, root: string): Promise<void> {
  const { runtime, scope } = createToolset({ root, checkTimeoutMs: 300 })
  out.line('Under the hood — the runtime alone (no model, no agent, no log):')
  const schema = toModelSchema(runtime.view(scope).get('read_file')!)
  const say = (line: string) => {
    for (const part of wrapLine(line, out.columns, '      ')) out.line(part)
  }
  say(`  model-facing schema of read_file: ${JSON.stringify(schema)}`)
  let n = 0
  for (const call of CALLS) {
    const result = await runtime.execute({
      callId: `tour_${++n}`,
      name: call.name,
      arguments: call.arguments,
      signal: new AbortController().signal,
      scope,
      ...(call.approver ? { approver: fixedApprover(call.approver) } : {}),
    })
    say(`  ${call.label}: ${call.name} ${JSON.stringify(call.arguments)}`)
    say(`    → ${compact(result)}${Object.isFrozen(result) ? '  (frozen)' : ''}`)
  }
}
