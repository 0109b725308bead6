/**
 * The provenance of the calls one program makes (H4.1): the values a program's untrusted or
 * confidential tool results hand it are indexed as they settle, so a later binding call whose
 * arguments hold one of them carries that result as the argument's source, and is checked by
 * policy like a model-direct call. Values the program took from the model's context (literals of
 * its code) keep the sources the `run_code` call's own arguments had.
 */
import type { ContentBlock } from '../contract/content.js'
import type {
  ArgumentOrigin,
  ContextProvenance,
  ProvenanceLabel,
  ProvenanceSource,
} from '../contract/provenance.js'
import type { ToolResult } from '../contract/result.js'
import type { JsonValue } from '../foundation/lossless-json.js'
import { AtomIndex } from '../provenance/atom-index.js'
import { valueAtoms } from '../provenance/atoms.js'
import { isMarked } from '../provenance/label.js'

/** Every string of a value, at any depth (a work stack: the depth comes from a tool). */
function stringLeaves(value: JsonValue, into: string[]): void {
  const stack: JsonValue[] = [value]
  while (stack.length > 0) {
    const node = stack.pop()!
    if (typeof node === 'string') into.push(node)
    else if (Array.isArray(node)) stack.push(...node)
    else if (node !== null && typeof node === 'object') stack.push(...Object.values(node))
  }
}

/** The provenance of one `run_code` run's nested calls (H4.1). */
export class RunProvenance {
  readonly #index = new AtomIndex()
  readonly #sources: ProvenanceSource[] = []
  /** The context's origins of the program text, by atom: how a literal of the code reached it. */
  readonly #literals = new Map<string, ArgumentOrigin>()

  constructor(readonly context: ContextProvenance | undefined) {
    for (const origin of context?.arguments ?? []) this.#literals.set(`${origin.kind}:${origin.atom}`, origin)
  }

  /** Takes a settled nested result: a labelled one enters the run's sources and index. */
  settled(callId: string, tool: string, result: ToolResult): void {
    const label = result.provenance
    if (label === undefined || !isMarked(label)) return
    const source: ProvenanceSource = Object.freeze({ callId, tool, label })
    const texts: string[] = []
    for (const block of result.content as readonly (ContentBlock & { text?: unknown })[]) {
      if (typeof block.text === 'string') texts.push(block.text)
    }
    if (!result.isError) stringLeaves(result.value, texts)
    this.#sources.push(source)
    this.#index.add(source, texts)
  }

  /**
   * The label of the run's own result (H4.2): untrusted if a nested result it read was, confidential
   * if one was; `undefined` when none was labelled.
   */
  label(): ProvenanceLabel | undefined {
    if (this.#sources.length === 0) return undefined
    const untrusted = this.#sources.some((s) => s.label.integrity === 'untrusted')
    const confidential = this.#sources.some((s) => s.label.confidential === true)
    if (!untrusted && !confidential) return undefined
    return Object.freeze({
      integrity: untrusted ? 'untrusted' : 'trusted',
      ...(confidential ? { confidential } : {}),
    })
  }

  /** `exec.provenance` of a nested call with these arguments; `undefined` when nothing is labelled. */
  of(args: JsonValue): ContextProvenance | undefined {
    const context = this.context
    if (context === undefined && this.#sources.length === 0) return undefined
    const origins = this.#index.origins(args)
    if (this.#literals.size > 0) {
      for (const atom of valueAtoms(args)) {
        const literal = this.#literals.get(`${atom.kind}:${atom.text}`)
        if (literal !== undefined) origins.push(Object.freeze({ ...literal, path: atom.path }))
      }
    }
    const labels = this.#sources.map((s) => s.label)
    return Object.freeze({
      untrusted: context?.untrusted === true || labels.some((l) => l.integrity === 'untrusted'),
      confidential: context?.confidential === true || labels.some((l) => l.confidential === true),
      sources: Object.freeze([...(context?.sources ?? []), ...this.#sources]),
      arguments: Object.freeze(origins),
    })
  }
}
