/**
 * The session page's rows (G3.2): display entries grouped for the screen. Each call becomes one
 * card row holding its result, its approvals and its Code Mode sub-calls as a tree; turns, steps
 * and messages are rows of their own. Pure: the page and the tests build rows the same way.
 */
import type { DisplayEntry } from '../../src/display/session-display.js'

type Entry<K extends DisplayEntry['kind']> = Extract<DisplayEntry, { kind: K }>

/** A Code Mode sub-call and the calls it made in turn. */
export interface SubCallNode {
  readonly call: Entry<'sub-call'>
  result?: Entry<'sub-result'>
  readonly children: SubCallNode[]
}

/** One tool call as a card. Mutable only while `SessionRows` adds to it; replaced on change. */
export interface CardRow {
  readonly type: 'card'
  readonly key: string
  readonly turn: number
  readonly call: Entry<'call'>
  readonly result?: Entry<'result'>
  readonly approvals: readonly Entry<'approval'>[]
  readonly subCalls: readonly SubCallNode[]
  /** Every seq this card shows, for links to an event. */
  readonly seqs: readonly number[]
}

/** A row of the session page. */
export type Row =
  | {
      readonly type: 'turn'
      readonly key: string
      readonly turn: number
      readonly entry: Entry<'turn-start'>
    }
  | {
      readonly type: 'turn-end'
      readonly key: string
      readonly turn: number
      readonly entry: Entry<'turn-end'>
    }
  | {
      readonly type: 'step'
      readonly key: string
      readonly turn: number
      readonly entry: Entry<'step-start'>
    }
  | {
      readonly type: 'message'
      readonly key: string
      readonly turn: number
      readonly entry: Entry<'message'>
    }
  | {
      readonly type: 'note'
      readonly key: string
      readonly turn: number
      readonly entry: Entry<'note'>
    }
  | CardRow

/** The row type of each entry kind that is a row of its own. */
const PLAIN_ROWS = {
  'turn-start': 'turn',
  'turn-end': 'turn-end',
  'step-start': 'step',
  message: 'message',
  note: 'note',
} as const

/** Every Code Mode sub-call of a card, at any depth. */
export function nestedCalls(card: CardRow): SubCallNode[] {
  const nodes: SubCallNode[] = []
  const stack = [...card.subCalls]
  while (stack.length > 0) {
    const node = stack.pop()!
    nodes.push(node)
    stack.push(...node.children)
  }
  return nodes
}

/** How many of a card's Code Mode sub-calls, at any depth, failed. */
export function nestedFailures(card: CardRow): number {
  return nestedCalls(card).filter((node) => node.result?.isError).length
}

/** True iff the card failed, or one of its Code Mode sub-calls did. */
export function cardFailed(card: CardRow): boolean {
  return card.result?.isError === true || nestedFailures(card) > 0
}

/** The tool names a card shows: its own and those of its sub-calls. */
export function cardTools(card: CardRow): string[] {
  return [card.call.name, ...nestedCalls(card).map((node) => node.call.name)]
}

/** The rows of a session, built incrementally from its display entries in order. */
export class SessionRows {
  rows: Row[] = []
  readonly #cards = new Map<string, number>()
  readonly #subs = new Map<string, { node: SubCallNode; card: string }>()

  /** Adds entries; rows that change are replaced by new objects, so a view can compare rows by identity. */
  add(entries: readonly DisplayEntry[]): void {
    for (const entry of entries) this.#add(entry)
  }

  /** The index of the row that shows event `seq`, or -1. */
  rowOf(seq: number): number {
    return this.rows.findIndex((row) =>
      row.type === 'card' ? row.seqs.includes(seq) : row.entry.seq === seq,
    )
  }

  #add(entry: DisplayEntry): void {
    const { turn, seq } = entry
    switch (entry.kind) {
      case 'turn-start':
      case 'turn-end':
      case 'step-start':
      case 'message':
      case 'note':
        this.rows.push({ type: PLAIN_ROWS[entry.kind], key: `e${seq}`, turn, entry } as Row)
        return
      case 'call':
        this.#cards.set(entry.callId, this.rows.length)
        this.rows.push({
          type: 'card',
          key: `c${seq}`,
          turn,
          call: entry,
          approvals: [],
          subCalls: [],
          seqs: [seq],
        })
        return
      case 'result':
        this.#update(entry.callId, seq, (card) => ({ ...card, result: entry }))
        return
      case 'approval':
        this.#update(entry.callId, seq, (card) => ({ ...card, approvals: [...card.approvals, entry] }))
        return
      case 'sub-call': {
        const node: SubCallNode = { call: entry, children: [] }
        this.#subs.set(entry.subCallId, { node, card: entry.rootCallId })
        const parent = this.#subs.get(entry.parentCallId)
        this.#update(entry.rootCallId, seq, (card) => {
          if (parent !== undefined) {
            parent.node.children.push(node)
            return { ...card }
          }
          return { ...card, subCalls: [...card.subCalls, node] }
        })
        return
      }
      case 'sub-result': {
        const sub = this.#subs.get(entry.subCallId)
        if (sub !== undefined) sub.node.result = entry
        this.#update(entry.rootCallId, seq, (card) => ({ ...card }))
        return
      }
    }
  }

  /** Replaces the card of `callId` with `change(card)`, adding `seq` to what it shows. */
  #update(callId: string, seq: number, change: (card: CardRow) => CardRow): void {
    const index = this.#cards.get(callId)
    const row = index === undefined ? undefined : this.rows[index]
    if (row === undefined || row.type !== 'card') return
    const next = change(row)
    this.rows[index!] = { ...next, seqs: [...next.seqs, seq] }
  }
}

/** What the session page shows. `undefined` fields do not filter. */
export interface RowFilter {
  readonly failuresOnly: boolean
  readonly tool: string | undefined
  readonly turn: number | undefined
}

/**
 * The rows `filter` keeps (G3.3): with failures only or a tool, just the cards that match (a
 * card matches a tool when it or one of its sub-calls called it) under the headings of their
 * turns and steps; with a turn, only that turn's rows.
 */
export function filterRows(rows: readonly Row[], filter: RowFilter): Row[] {
  const cardsOnly = filter.failuresOnly || filter.tool !== undefined
  if (!cardsOnly && filter.turn === undefined) return rows as Row[]
  const inTurn = rows.filter((row) => filter.turn === undefined || row.turn === filter.turn)
  if (!cardsOnly) return inTurn
  const kept = new Set(
    inTurn.filter(
      (row): row is CardRow =>
        row.type === 'card' &&
        (!filter.failuresOnly || cardFailed(row)) &&
        (filter.tool === undefined || cardTools(row).includes(filter.tool)),
    ),
  )
  // The headings over a kept card: its turn's, and its step's.
  const headings = new Set([...kept].flatMap((card) => [`${card.turn}`, `${card.turn}/${card.call.step}`]))
  return inTurn.filter((row) => {
    if (row.type === 'card') return kept.has(row)
    if (row.type === 'turn') return headings.has(`${row.turn}`)
    if (row.type === 'step') return headings.has(`${row.turn}/${row.entry.step}`)
    return false
  })
}
