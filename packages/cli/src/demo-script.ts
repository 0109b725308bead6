import { type ModelAdapter, type ScriptedOptions, type ScriptedStep, scripted } from '@tooltx/agent'

/** The task the demo agent is given. */
export const DEMO_TASK = 'Find the open TODOs in this workspace, run the checks, and save a summary note.'

const NOTE = [
  '# Open TODOs',
  '',
  '- src/inventory.ts:9 — reject negative quantities',
  '- src/inventory.ts:19 — reserve units so two orders cannot ship the same one',
  '- src/pricing.ts:2 — make the bulk discount threshold configurable',
  '- docs/roadmap.md:5 — decide whether returns restock automatically',
].join('\n')

/** The id of the demo's one write, the call a person approves or rejects. */
const NOTE_CALL = 'call_note'

/** What the demo found, said in both closing replies. */
const FOUND =
  'There are four open TODOs (negative quantities, reservations, a configurable discount and returns). ' +
  'Lint flags the three in src/; the slow check timed out; .env was off limits.'

/**
 * The scripted replies of the demo: a parallel batch of reads, a guard denial, a check and a
 * timeout in one batch, a write that needs approval, and a final answer.
 */
export const DEMO_SCRIPT: readonly ScriptedStep[] = [
  {
    text: 'I will look around the workspace first.',
    toolCalls: [
      { id: 'call_list', name: 'list_files', arguments: '{}' },
      { id: 'call_grep', name: 'grep', arguments: '{"pattern":"TODO"}' },
      { id: 'call_readme', name: 'read_file', arguments: '{"path":"README.md"}' },
    ],
  },
  {
    text: 'Now the configuration and the checks.',
    toolCalls: [
      { id: 'call_env', name: 'read_file', arguments: '{"path":".env"}' },
      { id: 'call_lint', name: 'run_check', arguments: '{"check":"lint"}' },
      { id: 'call_slow', name: 'run_check', arguments: '{"check":"slow-check"}' },
    ],
  },
  {
    text: 'Saving the summary.',
    toolCalls: [
      {
        id: NOTE_CALL,
        name: 'write_note',
        arguments: JSON.stringify({ name: 'todo-summary.md', text: NOTE }),
      },
    ],
  },
  {
    text: `${FOUND} The summary is in notes/todo-summary.md.`,
  },
]

/**
 * The closing reply when the note was not written: its approval was rejected (at the prompt,
 * or with `tooltx approve --deny`) or could not be given (K2.30).
 */
const NOT_SAVED = `${FOUND} The note was not saved, since its write was not approved; nothing in notes/ changed.`

/**
 * The demo's model: `script` answered in order, except that the closing reply after a note
 * whose write failed says it was not saved (K2.30), so the demo never claims a file it did not
 * write. The note's result is the last message of the request that closing reply answers.
 */
export function demoModel(script: readonly ScriptedStep[], options: ScriptedOptions): ModelAdapter {
  const model = scripted(script, options)
  return {
    name: model.name,
    stream(request, signal) {
      const last = request.messages.at(-1)
      const refused = last?.role === 'tool' && last.callId === NOTE_CALL && last.isError
      return (refused ? scripted([{ text: NOT_SAVED }], options) : model).stream(request, signal)
    },
  }
}
