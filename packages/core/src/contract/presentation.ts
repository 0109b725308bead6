import type { JsonValue } from '../foundation/lossless-json.js'
import type { ContentBlock } from './content.js'

/** What a call does, for UIs (U1.1). */
export type CallKind = 'read' | 'edit' | 'delete' | 'move' | 'search' | 'execute' | 'fetch' | 'other'

/** A file location a card may point at. */
export interface CardLocation {
  path: string
  line?: number
}

/** One file change shown by a diff card; `oldText: null` means a new file. */
export interface FileDiff {
  path: string
  oldText: string | null
  newText: string
}

/** The card shown for a tool call before it has a result (U1.1). */
export type CallView =
  | {
      card: 'generic'
      title: string
      kind?: CallKind
      rawInput?: string
      content?: ContentBlock[]
      locations?: CardLocation[]
    }
  | { card: 'terminal'; title: string; description?: string; cwd?: string }
  | { card: 'diff'; title: string; diffs: FileDiff[]; locations?: CardLocation[] }

/** The card shown for a finished tool call (U1.2). */
export type ResultView =
  | { card: 'generic'; title?: string; content?: ContentBlock[] }
  | { card: 'terminal'; title?: string; output?: string; exitCode?: number; signal?: string }
  | { card: 'diff'; title?: string; diffs: FileDiff[] }
  | {
      card: 'search'
      shape: 'matches'
      files: { path: string; matches: { line: number; text: string }[] }[]
      truncated: boolean
      total: number
    }
  | { card: 'search'; shape: 'paths'; paths: string[]; truncated: boolean; total: number }
  | {
      card: 'read'
      path: string
      offset: number
      lines: { number: number; text: string }[]
      totalLines: number
      lang?: string
      content?: ContentBlock[]
    }
  | {
      card: 'web'
      kind: 'search'
      sources: { url: string; title?: string }[]
      answer?: string
      truncated: boolean
    }
  | { card: 'web'; kind: 'fetch'; url: string; statusCode: number; truncated: boolean }

/** The durable part of a result that `presentResult` may read (U1.4): never the value. */
export interface DurableResult {
  content: ContentBlock[]
  isError: boolean
  meta?: JsonValue
}
