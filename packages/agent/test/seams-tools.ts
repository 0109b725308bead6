/**
 * The tools of the seams model test's world (V1.9, V1.11): bodies that count their real side
 * effects (`Effect`, reported through `record`), one that asks a form of its own (P8.13), the
 * policy that makes `pay` ask; and how the world's person answers a form.
 */
import { defineTool, type JsonValue, type RuntimeScope, type ToolRuntime } from '@tooltx/core'

/** One run of a tool body: a real side effect (or, for `look`, a read) as the tool saw it. */
export interface Effect {
  readonly tool: string
  /** The `id` argument: the call id, or `<call id>/<n>` for a Code Mode sub-call. */
  readonly id: string
  /** The session the world was working on when the body ran. */
  readonly session: string
  readonly args: JsonValue
  /** `stamp`'s idempotency key, as its deduplicating backend saw it. */
  readonly key?: string
}

/**
 * Marks every value a form answer carries (a tool body's own form, P8.13, or a server's, Y2.35):
 * the session log must never hold one (P8.19, L1.10).
 */
export const FORM_VALUE = 'FORM-VALUE-'

/** How a form is answered: the person accepts, declines, cancels, or the handler throws. */
export type FormAnswer = 'accept' | 'decline' | 'cancel' | 'throw'

/** Answers `request`'s form as `how` says; an accepted one carries `FORM_VALUE` in every text. */
export function answerForm(
  how: FormAnswer,
  request: { readonly requestedSchema: { readonly properties: Readonly<Record<string, { type?: string }>> } },
  n: number,
): { action: 'accept'; content: Record<string, string | boolean> } | { action: 'decline' | 'cancel' } {
  if (how === 'throw') throw new Error('nobody is at the terminal')
  if (how !== 'accept') return { action: how }
  const fields = Object.entries(request.requestedSchema.properties)
  return {
    action: 'accept',
    content: Object.fromEntries(
      fields.map(([k, f]) => [k, f.type === 'boolean' ? true : `${FORM_VALUE}${n}`]),
    ),
  }
}

const idParam = { id: { type: 'string', required: true } } as const
const withPath = { ...idParam, path: { type: 'string' } } as const
const textOut = {
  schema: { type: 'string' },
  render: (_: unknown, v: string) => [{ type: 'text' as const, text: v }],
} as const

/** Registers the world's tools in `scope` and `pay`'s ask on `runtime`; each body reports to `report`. */
export function registerTools(
  runtime: ToolRuntime,
  scope: RuntimeScope,
  report: (effect: Omit<Effect, 'session'>) => void,
): void {
  const record = (tool: string, args: { id: string }, key?: string) =>
    report({ tool, id: args.id, args, ...(key === undefined ? {} : { key }) })
  const tick = () => new Promise((resolve) => setImmediate(resolve))
  scope.register(
    defineTool({
      name: 'look',
      description: 'Reads something (no effect).',
      effect: 'read',
      parameters: withPath,
      output: textOut,
      isConcurrencySafe: () => true,
      execute: async (args) => {
        record('look', args)
        await tick()
        return 'seen'
      },
    }),
  )
  scope.register(
    defineTool({
      name: 'stamp',
      description: 'Stamps once per idempotency key.',
      effect: 'idempotent',
      parameters: idParam,
      output: textOut,
      isConcurrencySafe: () => true,
      execute: async (args, run) => {
        record('stamp', args, run.idempotencyKey)
        await tick()
        return 'stamped'
      },
    }),
  )
  scope.register(
    defineTool({
      name: 'pay',
      description: 'Moves money (asks first).',
      effect: 'write',
      parameters: withPath,
      output: textOut,
      execute: (args) => {
        record('pay', args)
        return 'paid'
      },
    }),
  )
  scope.register(
    defineTool({
      name: 'log',
      description: 'Writes a log line and records a receipt.',
      effect: 'write',
      parameters: idParam,
      output: textOut,
      execute: async (args, run) => {
        record('log', args)
        await run.recordEffect({ logged: args.id })
        return 'logged'
      },
    }),
  )
  scope.register(
    defineTool({
      name: 'form',
      description: 'Asks the person a form of its own (P8.13); its answer stays in the body.',
      effect: 'read',
      parameters: idParam,
      output: textOut,
      isConcurrencySafe: () => true,
      execute: async (args, run) => {
        const reply = await run.elicit({
          message: 'Which code?',
          requestedSchema: { type: 'object', properties: { code: { type: 'string' } }, required: ['code'] },
        })
        record('form', { id: args.id, action: reply.action } as { id: string })
        return `form ${reply.action}`
      },
    }),
  )
  runtime.onPreExecute(async (exec, next) =>
    exec.name === 'pay' ? { kind: 'ask', reason: 'moves money' } : next(),
  )
}
