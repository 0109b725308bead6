/**
 * Atoms of text and of argument values (H3.2): the pieces a copied value keeps — e-mail
 * addresses, URLs, account numbers (IBANs and long digit runs), numbers of three or more digits,
 * and runs of five words. Matching them is a heuristic: a paraphrase, a translation or a
 * re-encoding defeats it (H3.5).
 */

import type { AtomKind } from '../contract/provenance.js'
import type { JsonValue } from '../foundation/lossless-json.js'

/** One atom: its kind and normalized text (the key it is indexed under). */
export interface Atom {
  readonly kind: AtomKind
  readonly text: string
}

/** One atom of an argument value, with where in the arguments it was found. */
export interface ValueAtom extends Atom {
  readonly path: string
}

/** A character of an address's local part; the part before `@` is read at most this far back. */
const LOCAL_CHAR = /[A-Za-z0-9._%+-]/
const LOCAL_MAX = 64
/** The labels after `@`, read from a slice at most `DOMAIN_MAX` long; the last one must be letters. */
const DOMAIN = /^[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+/
const DOMAIN_MAX = 253
const TOP_LABEL = /^[A-Za-z]{2,}$/
const URL_PATTERN = /\bhttps?:\/\/[^\s"'<>()[\]{}]+/gi
const IBAN = /\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?\b/g
const DIGIT_RUN = /\d(?:[ -]?\d){7,}/g
const NUMBER = /\d[\d,]*(?:\.\d+)?/g
const WORD = /[\p{L}\p{N}]+/gu
/** A run of this many words is a `words` atom. */
export const WORDS_PER_RUN = 5

/** One match: where it starts and ends in the text, and its text. */
type Span = readonly [start: number, end: number, text: string]

/**
 * The e-mail addresses of `text`, found from each `@` outwards rather than by one pattern: a
 * pattern that starts with `[…]+@` backtracks quadratically over a long run without an `@`, and
 * tool results are attacker-controlled text.
 */
function emailSpans(text: string): Span[] {
  const spans: Span[] = []
  for (let at = text.indexOf('@'); at >= 0; at = text.indexOf('@', at + 1)) {
    let start = at
    while (start > 0 && at - start < LOCAL_MAX && LOCAL_CHAR.test(text[start - 1]!)) start--
    const domain = start === at ? null : DOMAIN.exec(text.slice(at + 1, at + 1 + DOMAIN_MAX))
    if (domain === null) continue
    const labels = domain[0].split('.')
    while (labels.length >= 2 && !TOP_LABEL.test(labels[labels.length - 1]!)) labels.pop()
    if (labels.length < 2) continue
    const end = at + 1 + labels.join('.').length
    spans.push([start, end, text.slice(start, end)])
  }
  return spans
}

/** The matches of a global `pattern` in `text`, with where they are. */
function patternSpans(text: string, pattern: RegExp): Span[] {
  const spans: Span[] = []
  for (const match of text.matchAll(pattern))
    spans.push([match.index, match.index + match[0].length, match[0]])
  return spans
}

/** `text` with every span blanked out (same length), so a later pattern cannot match inside it. */
function blank(text: string, spans: readonly Span[]): string {
  if (spans.length === 0) return text
  let out = ''
  let from = 0
  for (const [start, end] of spans) {
    if (start < from) continue
    out += text.slice(from, start) + ' '.repeat(end - start)
    from = end
  }
  return out + text.slice(from)
}

/** The canonical text of a number: no thousands separators, no trailing fractional zeros. */
function canonicalNumber(text: string): string | undefined {
  const plain = text.replace(/,/g, '')
  const n = Number(plain)
  if (!Number.isFinite(n)) return undefined
  // Numbers of fewer than three digits are too common to say where a value came from.
  return plain.replace(/[^\d]/g, '').replace(/^0+/, '').length >= 3 ? String(n) : undefined
}

/**
 * Every atom of `text`, each normalized, duplicates kept (callers use sets). A number inside an
 * address, a URL or an account number is part of that atom, not one of its own. Linear in the
 * length of the text. Never throws.
 */
export function textAtoms(text: string): Atom[] {
  const atoms: Atom[] = []
  let rest = text
  const take = (spans: Span[], kind: AtomKind, normalize: (match: string) => string) => {
    for (const [, , match] of spans) atoms.push({ kind, text: normalize(match) })
    rest = blank(rest, spans)
  }
  take(emailSpans(rest), 'email', (m) => m.toLowerCase())
  take(patternSpans(rest, URL_PATTERN), 'url', (m) => m.replace(/[.,;:!?]+$/, ''))
  take(patternSpans(rest, IBAN), 'account', (m) => m.replace(/ /g, ''))
  take(patternSpans(rest, DIGIT_RUN), 'account', (m) => m.replace(/[ -]/g, ''))
  for (const match of rest.match(NUMBER) ?? []) {
    const number = canonicalNumber(match)
    if (number !== undefined) atoms.push({ kind: 'number', text: number })
  }
  const words = (text.toLowerCase().match(WORD) ?? []) as string[]
  for (let i = 0; i + WORDS_PER_RUN <= words.length; i++) {
    atoms.push({ kind: 'words', text: words.slice(i, i + WORDS_PER_RUN).join(' ') })
  }
  return atoms
}

/**
 * The atoms of an argument value (H3.2), with paths: every string leaf's text atoms and every
 * number leaf as a `number` atom. Walks with a stack, so depth never overflows. Never throws.
 */
export function valueAtoms(value: JsonValue | undefined): ValueAtom[] {
  const found: ValueAtom[] = []
  const stack: [JsonValue | undefined, string][] = [[value, '']]
  while (stack.length > 0) {
    const [node, path] = stack.pop()!
    if (typeof node === 'string') {
      for (const atom of textAtoms(node)) found.push({ ...atom, path })
    } else if (typeof node === 'number') {
      const number = canonicalNumber(String(node))
      if (number !== undefined) found.push({ kind: 'number', text: number, path })
    } else if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--) stack.push([node[i], `${path}[${i}]`])
    } else if (node !== null && typeof node === 'object') {
      const keys = Object.keys(node)
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i]!
        stack.push([(node as Record<string, JsonValue>)[key], path === '' ? key : `${path}.${key}`])
      }
    }
  }
  return found
}
