import type { ScriptedStep } from '@tooltx/agent'

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
        id: 'call_note',
        name: 'write_note',
        arguments: JSON.stringify({ name: 'todo-summary.md', text: NOTE }),
      },
    ],
  },
  {
    text:
      'There are four open TODOs (negative quantities, reservations, a configurable discount and returns). ' +
      'Lint flags the three in src/; the slow check timed out; .env was off limits. ' +
      'The summary is in notes/todo-summary.md.',
  },
]
