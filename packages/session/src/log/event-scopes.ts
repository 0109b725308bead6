/**
 * Every session event type, in the order of L1.7 (`session/fork` first, A2.1), with the ids its
 * data carries: `session` neither (`session/fork`, `submission/failed`, `submission/queued`), `turn` a `turn`, `step`
 * a `turn` and a `step`. The log's list of event types (`SESSION_EVENT_TYPES`) is this table's keys.
 */
export const EVENT_SCOPES = Object.freeze({
  'session/fork': 'session',
  'turn/start': 'turn',
  'step/start': 'step',
  'user/message': 'step',
  'assistant/message': 'step',
  'tool/call': 'step',
  'tool/result': 'step',
  'tool/effect': 'step',
  'approval/asked': 'step',
  'approval/decided': 'step',
  'turn/resumed': 'step',
  'tool/code-dispatch-start': 'step',
  'tool/code-dispatch': 'step',
  'context/compacted': 'step',
  'step/end': 'step',
  'turn/end': 'turn',
  'submission/failed': 'session',
  'submission/queued': 'session',
  'server/request': 'step',
} as const)
