import type { ToolCallBlock } from '@tooltx/core'
import type { NewSessionEvent } from './events.js'
import type { LogFacts } from './log-facts.js'
import type { Changes } from './undo-log.js'

/**
 * Records in `state` an event that passed the checks (`log-checks.ts`), every change made
 * through `changes`: `inPlace` when replaying a log, an `UndoLog` when appending a batch that
 * may still be refused or fail to write.
 */
export function applyEvent(state: LogFacts, event: NewSessionEvent, changes: Changes): void {
  if (!state.started) changes.set(state, 'started', true)
  switch (event.type) {
    case 'turn/start':
      changes.set(state, 'turn', event.data.turn)
      changes.set(state, 'turnOpen', true)
      changes.set(state, 'step', 0)
      changes.set(state, 'stepOpen', false)
      changes.set(state, 'assistant', undefined)
      changes.clear(state.pendingApprovals)
      changes.clear(state.dispatches)
      changes.clear(state.durable)
      return
    case 'step/start':
      changes.set(state, 'step', event.data.step)
      changes.set(state, 'stepOpen', true)
      return
    case 'step/end':
      changes.set(state, 'stepOpen', false)
      return
    case 'assistant/message': {
      const blocks = event.data.content.filter((b): b is ToolCallBlock => b.type === 'tool-call')
      changes.set(state, 'assistant', {
        step: event.data.step,
        blocks,
        ids: new Set(blocks.map((b) => b.id)),
        called: new Set<string>(),
        answered: new Set<string>(),
        receipts: new Map(),
        decisions: new Map(),
      })
      return
    }
    case 'tool/call':
      if (state.assistant !== undefined) changes.add(state.assistant.called, event.data.callId)
      return
    case 'tool/result':
      if (state.assistant !== undefined) changes.add(state.assistant.answered, event.data.callId)
      return
    case 'tool/effect': {
      const receipts = state.assistant?.receipts
      if (receipts === undefined) return
      const { callId, receipt } = event.data
      const list = receipts.get(callId)
      if (list === undefined) changes.put(receipts, callId, [receipt])
      else changes.push(list, receipt)
      return
    }
    case 'approval/asked': {
      const { callId } = event.data
      changes.put(state.pendingApprovals, callId, event.data)
      if (event.data.durable === true)
        changes.put(state.durable, callId, { asked: event.data, decided: undefined })
      return
    }
    case 'approval/decided': {
      const { callId, outcome } = event.data
      changes.remove(state.pendingApprovals, callId)
      const durable = state.durable.get(callId)
      if (durable !== undefined && durable.decided === undefined) changes.set(durable, 'decided', event.data)
      const decisions = state.assistant?.ids.has(callId) ? state.assistant.decisions : undefined
      if (decisions !== undefined && decisions.get(callId) !== 'allowed-once')
        changes.put(decisions, callId, outcome)
      return
    }
    case 'turn/resumed':
      changes.clear(state.durable)
      return
    case 'tool/code-dispatch-start':
      changes.put(state.dispatches, event.data.subCallId, { root: event.data.rootCallId, settled: false })
      return
    case 'tool/code-dispatch': {
      const dispatch = state.dispatches.get(event.data.subCallId)
      if (dispatch !== undefined) changes.set(dispatch, 'settled', true)
      return
    }
    case 'turn/end':
      changes.set(state, 'turnOpen', false)
      changes.set(state, 'stepOpen', false)
      return
    default:
      return
  }
}
