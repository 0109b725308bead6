/**
 * The tool registry: one global layer and a chain of scope layers (R1), resolved into
 * views (R2) through restrictions (R3) and modes (M1). Every read is live (R4.3).
 */
import type { AnyToolDefinition } from '../contract/definition.js'
import { RUN_CODE } from '../contract/definition.js'
import type { Guard } from '../contract/hooks.js'
import { definitionError, errorMessage } from '../foundation/errors.js'
import type { JsonValue } from '../foundation/lossless-json.js'
import { type CompiledValidator, compileValidator } from '../schema/validate.js'
import { assertToolDefinition } from '../tool/definition-checks.js'
import { checkToolMode, type ToolMode } from './tool-mode.js'

/** A registered definition with its output validator, compiled once at registration. */
export interface Entry {
  readonly def: AnyToolDefinition
  readonly validateOutput: CompiledValidator
}

/** An admitted-names rule of `scope.restrict` (R3.1); the sets are private copies (R3.8). */
export interface Restriction {
  readonly allow: ReadonlySet<string> | undefined
  readonly deny: ReadonlySet<string> | undefined
}

/** The internal state of one scope; the public scope object is `handle`. */
export class ScopeRecord {
  /** Tools registered through this scope, in first-insertion order. */
  readonly layer = new Map<string, Entry>()
  /** Copy-on-write, so a stage captures the list by reading it once (P5.7). */
  restrictions: readonly Restriction[] = []
  /** Guards of this layer in registration order (copy-on-write, P5.3). */
  guards: readonly Guard[] = []
  /** The mode declared by `presentAs`, with the token of that declaration. */
  mode: ToolMode | undefined
  modeToken: object | undefined
  disposed = false
  /** Disposers of hooks registered with `{ scope: handle }` (R1.4). */
  readonly hookDisposers = new Set<() => void>()
  /** Distance from the global layer: 1 for a scope chained to it. */
  readonly depth: number

  constructor(
    readonly parent: ScopeRecord | undefined,
    readonly handle: object,
  ) {
    this.depth = parent === undefined ? 1 : parent.depth + 1
  }
}

/**
 * The output validator of `def`: its own `output.validate` made total (D1.5), else the compiled
 * `output.schema`.
 */
function outputValidator(def: AnyToolDefinition): CompiledValidator {
  const own = def.output.validate
  if (own === undefined) return compileValidator(def.output.schema)
  return (value) => {
    try {
      const violations: unknown = own(value as JsonValue)
      if (Array.isArray(violations) && violations.every((v) => typeof v === 'string')) return [...violations]
      return ['output.validate must return an array of strings']
    } catch (error) {
      return [`output.validate failed: ${errorMessage(error)}`]
    }
  }
}

/** An entry synthesized for a view that is never stored in a layer (R2.5). */
export function entryOf(def: AnyToolDefinition): Entry {
  return Object.freeze({ def, validateOutput: outputValidator(def) })
}

function admitted(record: ScopeRecord, name: string): boolean {
  for (let r: ScopeRecord | undefined = record; r !== undefined; r = r.parent) {
    for (const restriction of r.restrictions) {
      if (restriction.allow !== undefined && !restriction.allow.has(name)) return false
      if (restriction.deny?.has(name) === true) return false
    }
  }
  return true
}

function hasRestrictions(record: ScopeRecord): boolean {
  for (let r: ScopeRecord | undefined = record; r !== undefined; r = r.parent)
    if (r.restrictions.length > 0) return true
  return false
}

/** Reads a restriction list once and copies it (R3.8); `undefined` when absent. */
function nameList(value: unknown, key: string): string[] | undefined {
  if (value === undefined) return undefined
  if (!Array.isArray(value)) throw definitionError(`restrict() ${key} must be an array of tool names`)
  const copy = Array.from(value as unknown[])
  for (const name of copy) {
    if (typeof name !== 'string') throw definitionError(`restrict() ${key} must be an array of tool names`)
  }
  return copy as string[]
}

/** The registry of one runtime. */
export class Registry {
  /** The global layer (R1.1). */
  readonly global = new Map<string, Entry>()

  /** Called after every change that can alter a view (Y1.9); copy-on-write, each one contained. */
  changeListeners: readonly (() => void)[] = []

  /** Moves on every change that can alter a view, so a view's cached surface knows it is stale (Q2.2). */
  version = 0

  constructor(
    /** The runtime's default mode (M1.1). */
    readonly defaultMode: ToolMode,
    /** The synthesized `run_code` entry (R2.5). */
    readonly runCode: Entry,
  ) {}

  /** Tells every change listener that views may have changed; listeners must not throw. */
  private changed(): void {
    this.version++
    for (const listener of this.changeListeners) listener()
  }

  /**
   * Registers a checked, frozen copy of `raw` in `record`'s layer (or the global one) and
   * returns an idempotent disposer that removes only this registration (D2.10–D2.12).
   * Throws before changing anything (E3.2).
   */
  register(record: ScopeRecord | undefined, raw: unknown): () => void {
    if (record?.disposed === true) throw disposedError()
    const def = assertToolDefinition(raw)
    const layer = record === undefined ? this.global : record.layer
    if (layer.has(def.name)) {
      throw definitionError(
        `tool "${def.name}" is already registered ${record === undefined ? 'globally' : 'in this scope'}`,
      )
    }
    const entry: Entry = Object.freeze({ def, validateOutput: outputValidator(def) })
    layer.set(def.name, entry)
    this.changed()
    return () => {
      if (layer.get(def.name) !== entry) return
      layer.delete(def.name)
      this.changed()
    }
  }

  /** The effective mode of a call or view in `record` (M1.2); the default without a scope. */
  mode(record: ScopeRecord | undefined): ToolMode {
    for (let r = record; r !== undefined; r = r.parent) if (r.mode !== undefined) return r.mode
    return this.defaultMode
  }

  /**
   * The entry `name` resolves to in the view of `record` (R2.1), or `undefined`: own
   * registrations first (exempt from restrictions), then the nearest ancestor or the
   * global layer if every restriction on the chain admits the name, then `run_code`
   * when the effective mode is not `native`.
   */
  resolve(record: ScopeRecord | undefined, name: string): Entry | undefined {
    if (record === undefined) {
      return (
        this.global.get(name) ??
        (name === RUN_CODE && this.defaultMode !== 'native' ? this.runCode : undefined)
      )
    }
    const own = record.layer.get(name)
    if (own !== undefined) return own
    let inherited: Entry | undefined
    for (let r = record.parent; r !== undefined && inherited === undefined; r = r.parent)
      inherited = r.layer.get(name)
    inherited ??= this.global.get(name)
    if (inherited !== undefined) return admitted(record, name) ? inherited : undefined
    return name === RUN_CODE && this.mode(record) !== 'native' ? this.runCode : undefined
  }

  /** The entries of the view of `record` in first-insertion order, `run_code` last (R2.1, R2.3). */
  list(record: ScopeRecord | undefined): Entry[] {
    const view = new Map(this.global)
    if (record !== undefined) {
      const ancestors: ScopeRecord[] = []
      for (let r = record.parent; r !== undefined; r = r.parent) ancestors.push(r)
      for (let i = ancestors.length - 1; i >= 0; i--)
        for (const [name, entry] of ancestors[i]!.layer) view.set(name, entry)
      if (hasRestrictions(record)) {
        for (const name of [...view.keys()]) {
          // A name the scope registers itself keeps its position when the inherited one is removed.
          if (!admitted(record, name) && !record.layer.has(name)) view.delete(name)
        }
      }
      for (const [name, entry] of record.layer) view.set(name, entry)
    }
    const entries = [...view.values()]
    if (this.mode(record) !== 'native') entries.push(this.runCode)
    return entries
  }

  /** Names a scope inherits from the global layer and its ancestors, before restrictions (R3.7). */
  private inheritedNames(record: ScopeRecord): Set<string> {
    const names = new Set(this.global.keys())
    for (let r = record.parent; r !== undefined; r = r.parent)
      for (const name of r.layer.keys()) names.add(name)
    return names
  }

  /** `scope.restrict` (R3): validates, stores a copy and returns an idempotent disposer. */
  restrict(record: ScopeRecord, spec: unknown): () => void {
    if (record.disposed) throw disposedError()
    if (spec === null || typeof spec !== 'object' || Array.isArray(spec)) {
      throw definitionError('restrict() needs an allow or deny list')
    }
    for (const key of Object.keys(spec)) {
      if (key !== 'allow' && key !== 'deny')
        throw definitionError(`restrict() does not know the key "${key}"`)
    }
    const allow = nameList((spec as { allow?: unknown }).allow, 'allow')
    const deny = nameList((spec as { deny?: unknown }).deny, 'deny')
    if (allow === undefined && deny === undefined)
      throw definitionError('restrict() needs an allow or deny list')
    const named = [...(allow ?? []), ...(deny ?? [])]
    if (named.includes(RUN_CODE))
      throw definitionError(`restrict() cannot name the reserved tool "${RUN_CODE}"`)
    const inherited = this.inheritedNames(record)
    const unknown = [...new Set(named.filter((name) => !inherited.has(name)))]
    if (unknown.length > 0) {
      const known = [...inherited].sort()
      throw definitionError(
        `restrict() names unknown inherited tool(s) ${unknown.map((n) => JSON.stringify(n)).join(', ')}; ` +
          `known inherited tools: ${known.length === 0 ? '(none)' : known.join(', ')}`,
      )
    }
    const restriction: Restriction = Object.freeze({
      allow: allow === undefined ? undefined : new Set(allow),
      deny: deny === undefined ? undefined : new Set(deny),
    })
    record.restrictions = [...record.restrictions, restriction]
    this.changed()
    return () => {
      if (!record.restrictions.includes(restriction)) return
      record.restrictions = record.restrictions.filter((r) => r !== restriction)
      this.changed()
    }
  }

  /** `scope.presentAs` (M1.2, M1.3): one declaration per scope; the disposer restores inheritance. */
  presentAs(record: ScopeRecord, mode: unknown): () => void {
    if (record.disposed) throw disposedError()
    const name = checkToolMode(mode, 'presentAs() mode')
    if (record.mode !== undefined) {
      throw definitionError(
        `presentAs('${name}') conflicts with presentAs('${record.mode}') already declared on this scope`,
      )
    }
    const token = {}
    record.mode = name
    record.modeToken = token
    this.changed()
    return () => {
      if (record.modeToken !== token) return
      record.mode = undefined
      record.modeToken = undefined
      this.changed()
    }
  }

  /** Empties a scope (R1.4): tools, restrictions, guards, mode and scoped hooks. Idempotent. */
  dispose(record: ScopeRecord): void {
    if (record.disposed) return
    record.disposed = true
    record.layer.clear()
    record.restrictions = []
    record.guards = []
    record.mode = undefined
    record.modeToken = undefined
    for (const off of [...record.hookDisposers]) off()
    record.hookDisposers.clear()
    this.changed()
  }
}

/** The error for anything registered through a disposed scope (R1.4). */
export function disposedError() {
  return definitionError('this scope was disposed; register through a live scope instead')
}
