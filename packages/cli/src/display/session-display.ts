import { isReasoning } from '@tooltx/agent'
import {
  type AnyToolDefinition,
  type CallView,
  type ContentBlock,
  callCard,
  type JsonValue,
  type ProvenanceLabel,
  parseToolArguments,
  type ResultView,
  resultCard,
} from '@tooltx/core'
import { RUN_CODE } from '@tooltx/core/internal'
import type { ContextCompactedData, SessionEvent, TurnEndReason } from '@tooltx/session'
import { callTitle } from './card-text.js'
import { counted } from './counted.js'
import { serverRequestLine } from './server-request-line.js'
import { fromUser } from './session-summary.js'

/** Looks up the definition a card is built from (U1.9: through the scope's view). */
export type DefinitionLookup = (name: string) => AnyToolDefinition | undefined

/** Where an entry sits in the log: its event's seq, turn and step (0 for turn-level events). */
interface At {
  readonly seq: number
  readonly turn: number
  readonly step: number
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
  return `⇢ context compacted: ${counted(n, 'old tool result')} cleared (${tokens})`
}

/**
 * One displayed fact of a session, built from one event (G1.1). The CLI timeline prints these as
 * lines and `tooltx view` renders them as cards, so both show the same calls, titles and codes.
 * Every entry is plain JSON.
 */
export type DisplayEntry =
  | (At & {
      readonly kind: 'note'
      /**
       * What the note is about: a fork's origin (A2.3), a tool's recorded effect (F1.3), a
       * context compaction (T3.7), a reply that stopped for a reason other than its end (T2.2),
       * a suspended turn that resumed after its approval was decided (F2.7), or an MCP server's
       * request of the host (Y4.12).
       */
      readonly what:
        | 'fork'
        | 'effect'
        | 'compacted'
        | 'stop'
        | 'resumed'
        | 'submission-failed'
        | 'submission-queued'
        | 'server-request'
      readonly text: string
    })
  | (At & { readonly kind: 'turn-start' })
  | (At & { readonly kind: 'step-start' })
  | (At & {
      readonly kind: 'message'
      /** `context` is a deferred context a tool handed back; `source` names its kind. */
      readonly role: 'user' | 'context' | 'assistant'
      readonly source?: string
      readonly text: string
      /** An assistant reply's reasoning blocks, each collapsed to one line (T1.5). */
      readonly reasoning?: readonly string[]
    })
  | (At & {
      readonly kind: 'call'
      readonly callId: string
      readonly name: string
      /** The card's one-line title, as the timeline prints it (`callTitle`). */
      readonly title: string
      readonly view: CallView
      /** The program of a Code Mode call (`run_code`'s `code` argument). */
      readonly program?: string
      /** When the call was seen (epoch ms), when known: a running call's time counts from it (G3.8). */
      readonly startedAt?: number
    })
  | (At & {
      readonly kind: 'result'
      readonly callId: string
      readonly name: string
      readonly isError: boolean
      /** The failure code of a failed call (`error.code`, or `error` when the log has none). */
      readonly code?: string
      readonly view: ResultView
      /** Milliseconds between the call and its result, when both arrival times are known. */
      readonly durationMs?: number
      /** The result's provenance label, when its tool declares one (H1.6). */
      readonly provenance?: ProvenanceLabel
    })
  | (At & {
      readonly kind: 'approval'
      readonly callId: string
      readonly name: string
      readonly phase: 'asked' | 'decided'
      readonly reason?: string
      readonly outcome?: string
      readonly digest?: string
      /** A durable ask (F2.2): it waits in the log until this ISO time. */
      readonly expiresAt?: string
      /** Who decided a durable ask (F2.5). */
      readonly by?: string
    })
  | (At & {
      readonly kind: 'sub-call'
      readonly rootCallId: string
      readonly parentCallId: string
      readonly subCallId: string
      readonly name: string
      readonly arguments: JsonValue
    })
  | (At & {
      readonly kind: 'sub-result'
      readonly rootCallId: string
      readonly parentCallId: string
      readonly subCallId: string
      readonly name: string
      readonly isError: boolean
      readonly code?: string
      readonly text: string
    })
  | (At & {
      readonly kind: 'turn-end'
      readonly reason: TurnEndReason
      readonly message?: string
    })

/** The text of content blocks: text as is, any other block as `[<type> content]`. */
export function contentText(content: readonly ContentBlock[]): string {
  return content
    .map((block) =>
      block.type === 'text' && typeof block.text === 'string' ? block.text : `[${block.type} content]`,
    )
    .join('\n')
}

/** `contentText` on one line, each run of whitespace one space: a submitted message in a note. */
function oneLineText(content: readonly ContentBlock[]): string {
  return contentText(content).replace(/\s+/g, ' ')
}

/** The `code` argument of a `run_code` call, when its arguments hold one. */
function programOf(raw: string): string | undefined {
  const args = parseToolArguments(raw)
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return undefined
  const code = (args as Record<string, JsonValue>).code
  return typeof code === 'string' ? code : undefined
}

/**
 * Turns session events into display entries, one event at a time (G1.1), keeping what a later
 * event needs (a call's arguments for its result card, its arrival time for the duration). Live
 * display and replay feed it the same events, so they show the same entries. Never throws for
 * any event a log holds: cards fall back (U1.7).
 */
export class SessionDisplay {
  readonly #lookup: DefinitionLookup
  readonly #calls = new Map<string, { arguments: string; at: number | undefined }>()

  constructor(lookup: DefinitionLookup) {
    this.#lookup = lookup
  }

  /**
   * The entry for `event`, or `undefined` for an event that shows nothing (`step/end`, an
   * assistant message without text). `at` is when the event was seen (ms), when known.
   */
  add(event: SessionEvent, at?: number): DisplayEntry | undefined {
    const { seq } = event
    switch (event.type) {
      case 'session/fork':
        return {
          kind: 'note',
          seq,
          turn: 0,
          step: 0,
          what: 'fork',
          text: `forked from ${event.data.source} at seq ${event.data.at}`,
        }
      case 'submission/failed': {
        const { submission, reason, message } = event.data
        const text = oneLineText(message.content)
        return {
          kind: 'note',
          seq,
          turn: 0,
          step: 0,
          what: 'submission-failed',
          text: `✗ submitted message ${submission} was given up, never answered: ${reason} (message: ${JSON.stringify(text)})`,
        }
      }
      case 'submission/queued': {
        const { submission, message } = event.data
        return {
          kind: 'note',
          seq,
          turn: 0,
          step: 0,
          what: 'submission-queued',
          text: `queued: ${JSON.stringify(oneLineText(message.content))} (submission ${submission}); a worker answers it`,
        }
      }
      case 'tool/effect':
        return {
          kind: 'note',
          seq,
          turn: event.data.turn,
          step: event.data.step,
          what: 'effect',
          text: `⚑ ${event.data.name} recorded an effect: ${JSON.stringify(event.data.receipt)}`,
        }
      case 'turn/start':
        return { kind: 'turn-start', seq, turn: event.data.turn, step: 0 }
      case 'step/start':
        return { kind: 'step-start', seq, turn: event.data.turn, step: event.data.step }
      case 'user/message': {
        const { turn, step, message } = event.data
        const text = contentText(message.content)
        if (fromUser(message)) return { kind: 'message', seq, turn, step, role: 'user', text }
        const source = String(message.source?.kind ?? 'unknown')
        return { kind: 'message', seq, turn, step, role: 'context', source, text }
      }
      case 'assistant/message': {
        const { turn, step, content } = event.data
        const text = content
          .filter((block) => block.type === 'text')
          .map((block) => block.text)
          .join('')
          .trim()
        const reasoning = content.filter(isReasoning).map(reasoningLine)
        if (text === '' && reasoning.length === 0) return undefined
        return {
          kind: 'message',
          seq,
          turn,
          step,
          role: 'assistant',
          text,
          ...(reasoning.length > 0 ? { reasoning } : {}),
        }
      }
      case 'context/compacted': {
        const { turn, step } = event.data
        return { kind: 'note', seq, turn, step, what: 'compacted', text: compactionLine(event.data) }
      }
      case 'tool/call': {
        const { turn, step, callId, name, arguments: raw } = event.data
        this.#calls.set(callId, { arguments: raw, at })
        const view = callCard(this.#lookup(name), name, raw)
        const program = name === RUN_CODE ? programOf(raw) : undefined
        const entry = { kind: 'call', seq, turn, step, callId, name, title: callTitle(view), view } as const
        return {
          ...entry,
          ...(program === undefined ? {} : { program }),
          ...(at === undefined ? {} : { startedAt: at }),
        }
      }
      case 'tool/result': {
        const { turn, step, callId, name, content, isError, meta, error, provenance } = event.data
        const call = this.#calls.get(callId)
        const durable =
          meta === undefined ? { content: [...content], isError } : { content: [...content], isError, meta }
        const view = resultCard(this.#lookup(name), name, call?.arguments ?? '', durable)
        const started = call?.at
        return {
          kind: 'result',
          seq,
          turn,
          step,
          callId,
          name,
          isError,
          ...(isError ? { code: error?.code ?? 'error' } : {}),
          view,
          ...(started !== undefined && at !== undefined ? { durationMs: Math.max(0, at - started) } : {}),
          ...(provenance === undefined ? {} : { provenance }),
        }
      }
      case 'approval/asked':
      case 'approval/decided': {
        const { turn, step, callId, name, argumentsDigest } = event.data
        const { reason } = event.data
        const why = reason ? { reason } : {}
        const said =
          event.type === 'approval/asked'
            ? {
                phase: 'asked' as const,
                ...why,
                ...(event.data.expiresAt === undefined ? {} : { expiresAt: event.data.expiresAt }),
              }
            : {
                phase: 'decided' as const,
                outcome: event.data.outcome,
                ...why,
                ...(event.data.by === undefined ? {} : { by: event.data.by }),
              }
        const digest = argumentsDigest ? { digest: argumentsDigest } : {}
        return { kind: 'approval', seq, turn, step, callId, name, ...said, ...digest }
      }
      case 'tool/code-dispatch-start':
      case 'tool/code-dispatch': {
        const { turn, step, rootCallId, parentCallId, subCallId, name } = event.data
        const at = { seq, turn, step, rootCallId, parentCallId, subCallId, name }
        if (event.type === 'tool/code-dispatch-start') {
          return { kind: 'sub-call', ...at, arguments: event.data.arguments }
        }
        const { isError, error, content } = event.data
        const code = isError ? { code: error?.code ?? 'error' } : {}
        return { kind: 'sub-result', ...at, isError, ...code, text: contentText(content) }
      }
      case 'step/end': {
        const { turn, step, stop } = event.data
        if (stop === undefined || stop.reason === 'stop' || stop.reason === 'tool_calls') return undefined
        const raw = stop.raw === undefined ? '' : ` (${stop.raw})`
        return {
          kind: 'note',
          seq,
          turn,
          step,
          what: 'stop',
          text: `■ the reply stopped: ${stop.reason}${raw}`,
        }
      }
      case 'server/request': {
        const { turn, step } = event.data
        return { kind: 'note', seq, turn, step, what: 'server-request', text: serverRequestLine(event.data) }
      }
      case 'turn/resumed': {
        const { turn, step } = event.data
        return {
          kind: 'note',
          seq,
          turn,
          step,
          what: 'resumed',
          text: '▶ the turn resumes after the decision',
        }
      }
      case 'turn/end': {
        const { turn, reason, message } = event.data
        return { kind: 'turn-end', seq, turn, step: 0, reason, ...(message ? { message } : {}) }
      }
    }
  }
}

/** Every display entry of `events`, in order (G1.1). */
export function displaySession(events: readonly SessionEvent[], lookup: DefinitionLookup): DisplayEntry[] {
  const display = new SessionDisplay(lookup)
  const entries: DisplayEntry[] = []
  for (const event of events) {
    const entry = display.add(event)
    if (entry !== undefined) entries.push(entry)
  }
  return entries
}
