/**
 * The index of atoms from labelled results (H3.3): which untrusted or confidential results in the
 * context each atom appears in. Updated one result at a time, so a call's lookup costs the size
 * of its arguments, never the length of the session (H3.4).
 */

import type { ArgumentOrigin, AtomKind, ProvenanceSource } from '../contract/provenance.js'
import type { JsonValue } from '../foundation/lossless-json.js'
import { textAtoms, valueAtoms } from './atoms.js'

/** The most sources one origin names: the latest ones, so a common phrase costs no more per call. */
export const MAX_ORIGIN_SOURCES = 16

/** The key of an atom in the index: kind and text, so an account number never matches a word run. */
const keyOf = (kind: string, text: string) => `${kind}:${text}`

/** Atoms of labelled results and of trusted text, kept up to date as results enter and leave. */
export class AtomIndex {
  readonly #sources = new Map<string, ProvenanceSource[]>()
  readonly #keysOf = new Map<ProvenanceSource, readonly string[]>()
  /** Atoms of trusted text (the user's messages): a value found there is the user's, not a copy (H3.3). */
  readonly #vouched = new Set<string>()

  /** True while no labelled result is indexed. */
  get empty(): boolean {
    return this.#keysOf.size === 0
  }

  /** Indexes the text of one labelled result under `source`. */
  add(source: ProvenanceSource, texts: readonly string[]): void {
    const keys = new Set<string>()
    for (const text of texts) for (const atom of textAtoms(text)) keys.add(keyOf(atom.kind, atom.text))
    for (const key of keys) {
      const list = this.#sources.get(key)
      if (list === undefined) this.#sources.set(key, [source])
      else list.push(source)
    }
    this.#keysOf.set(source, [...keys])
  }

  /** Forgets one result's atoms: its content left the context (H2.3). */
  remove(source: ProvenanceSource): void {
    const keys = this.#keysOf.get(source)
    if (keys === undefined) return
    this.#keysOf.delete(source)
    for (const key of keys) {
      const list = this.#sources.get(key)!.filter((s) => s !== source)
      if (list.length === 0) this.#sources.delete(key)
      else this.#sources.set(key, list)
    }
  }

  /** Records the atoms of trusted text (a user message): they are never attributed to a result. */
  vouch(texts: readonly string[]): void {
    for (const text of texts)
      for (const atom of textAtoms(text)) this.#vouched.add(keyOf(atom.kind, atom.text))
  }

  /**
   * The argument values found in indexed results (H3.1, H3.2): one origin per path and atom that
   * occurs in some labelled result and in no trusted text, in the order the arguments hold them;
   * the word runs of one path are one origin (its first run, the sources of all). An origin names
   * at most `MAX_ORIGIN_SOURCES` sources, the latest to enter the context. Never throws.
   */
  origins(args: JsonValue | undefined): ArgumentOrigin[] {
    if (this.#keysOf.size === 0) return []
    const found = new Map<
      string,
      { path: string; atom: string; kind: AtomKind; sources: Set<ProvenanceSource> }
    >()
    for (const atom of valueAtoms(args)) {
      const key = keyOf(atom.kind, atom.text)
      const sources = this.#sources.get(key)
      if (sources === undefined || this.#vouched.has(key)) continue
      const once = atom.kind === 'words' ? `${atom.path}\u0000words` : `${atom.path}\u0000${key}`
      let origin = found.get(once)
      if (origin === undefined) {
        origin = { path: atom.path, atom: atom.text, kind: atom.kind, sources: new Set() }
        found.set(once, origin)
      }
      for (let i = sources.length - 1; i >= 0 && origin.sources.size < MAX_ORIGIN_SOURCES; i--) {
        origin.sources.add(sources[i]!)
      }
    }
    return [...found.values()].map(({ path, atom, kind, sources }) =>
      // Gathered latest first; named in the order they entered the context.
      Object.freeze({ path, atom, kind, sources: Object.freeze([...sources].reverse()) }),
    )
  }
}
