import { isReasoning } from '@tooltx/agent'
import { type AnyToolDefinition, type ContentBlock, callCard, resultCard } from '@tooltx/core'
import type { ContextCompactedData, SessionEvent } from '@tooltx/session'
import { callBody, callTitle, resultBody } from './card-text.js'
import { terminalSafe } from './terminal-text.js'

/** Looks up the definition a card is built from (U1.9: through the scope's view). */
export type DefinitionLookup = (name: string) => AnyToolDefinition | undefined

function textOf(content: readonly ContentBlock[]): string {
  return content
    .map((block) =>
      block.type === 'text' && typeof block.text === 'string' ? block.text : `[${block.type} content]`,
    )
    .join('\n')
}

/** A reasoning block, collapsed to one line (T1.5): how much there is, never the text itself. */
function reasoningLine(block: { text: string; redacted?: boolean }): string {
  if (block.redacted === true) return '▸ thinking (redacted)'
  return `▸ thinking (${block.text.length.toLocaleString('en-US')} characters, collapsed)`
}

/** Where a compaction happened and what it replaced (T3.7). */
function compactionLine(data: ContextCompactedData): string {
  const tokens = `${data.tokensBefore.toLocaleString('en-US')} → ${data.tokensAfter.toLocaleString('en-US')} tokens`
  if (data.strategy === 'summarise') {
    return `⇢ context compacted: the history through seq ${data.through} summarised (${tokens})`
  }
  const n = data.cleared.length
  return `⇢ context compacted: ${n} old tool result${n === 1 ? '' : 's'} cleared (${tokens})`
}

function indent(prefix: string, lines: readonly string[]): string[] {
  return lines.map((line) => `${prefix}${line}`)
}

/**
 * Turns session events into timeline lines, one event at a time. Live display and replay
 * use the same renderer, so a replayed timeline shows exactly the cards shown live (U1.8).
 */
export class TimelineRenderer {
  readonly #lookup: DefinitionLookup
  readonly #calls = new Map<string, { name: string; arguments: string }>()

  constructor(lookup: DefinitionLookup) {
    this.#lookup = lookup
  }

  /**
   * The lines for one event (possibly none), safe to print: control characters from the model,
   * a tool or the log are shown escaped (K1.4). Never throws: cards fall back (U1.7).
   */
  render(event: SessionEvent): string[] {
    return this.#lines(event).map(terminalSafe)
  }

  #lines(event: SessionEvent): string[] {
    switch (event.type) {
      case 'turn/start':
        return [`── turn ${event.data.turn} ──`]
      case 'step/start':
        return [`  step ${event.data.step}`]
      case 'user/message': {
        const source = event.data.message.source
        const label = source === undefined ? 'user' : `context from ${String(source.kind ?? 'unknown')}`
        return indent('    ', [`${label}: ${textOf(event.data.message.content)}`])
      }
      case 'assistant/message': {
        const text = event.data.content
          .filter((block) => block.type === 'text')
          .map((block) => block.text)
          .join('')
          .trim()
        const reasoning = event.data.content.filter(isReasoning).map((block) => `    ${reasoningLine(block)}`)
        return text === '' ? reasoning : [...reasoning, ...indent('    ', [`assistant: ${text}`])]
      }
      case 'tool/call': {
        const { callId, name, arguments: raw } = event.data
        this.#calls.set(callId, { name, arguments: raw })
        const view = callCard(this.#lookup(name), name, raw)
        return [`    ▶ ${callTitle(view)}`, ...indent('        ', callBody(view))]
      }
      case 'tool/result': {
        const { callId, name, content, isError, meta, error } = event.data
        const raw = this.#calls.get(callId)?.arguments ?? ''
        const durable =
          meta === undefined ? { content: [...content], isError } : { content: [...content], isError, meta }
        const view = resultCard(this.#lookup(name), name, raw, durable)
        const mark = isError ? `✗ ${name} failed (${error?.code ?? 'error'})` : `✓ ${name}`
        return [`    ${mark}`, ...indent('        ', resultBody(view))]
      }
      case 'approval/asked':
        return [
          `    ? approval asked for ${event.data.name}${event.data.reason ? `: ${event.data.reason}` : ''}`,
        ]
      case 'approval/decided':
        return [`    ? approval for ${event.data.name}: ${event.data.outcome}`]
      case 'tool/code-dispatch-start':
        return [`      ↳ ${event.data.name} (${event.data.subCallId})`]
      case 'tool/code-dispatch':
        return [
          `      ↳ ${event.data.name} ${event.data.isError ? `failed (${event.data.error?.code ?? 'error'})` : 'done'}`,
        ]
      case 'context/compacted':
        return [`    ${compactionLine(event.data)}`]
      case 'step/end': {
        const stop = event.data.stop
        if (stop === undefined || stop.reason === 'stop' || stop.reason === 'tool_calls') return []
        return [`    ■ the reply stopped: ${stop.reason}${stop.raw === undefined ? '' : ` (${stop.raw})`}`]
      }
      case 'turn/end':
        return [
          `── turn ${event.data.turn} ${event.data.reason}${event.data.message ? `: ${event.data.message}` : ''} ──`,
        ]
    }
  }
}
