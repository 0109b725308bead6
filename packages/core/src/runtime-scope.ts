/** The public scope object of a runtime (R1): a registration target chained to a parent. */
import type { AnyToolDefinition } from './contract/definition.js'
import type { ToolScope } from './contract/execution.js'
import type { Guard } from './contract/hooks.js'
import { markUnfreezable } from './foundation/lossless-json.js'
import type { RuntimeCore } from './pipeline/runtime-core.js'
import { ScopeRecord } from './registry/registry.js'
import type { ToolMode } from './registry/tool-mode.js'

/** A restriction of the inherited view (R3.1). */
export interface RestrictRule {
  allow?: readonly string[]
  deny?: readonly string[]
}

/** A scope of a runtime: its own tools, restrictions, mode and guards, chained to a parent (R1). */
export interface RuntimeScope extends ToolScope {
  /** The parent scope, `undefined` when chained to the global layer. */
  readonly parent: RuntimeScope | undefined
  /** Registers in this scope's layer (R1.2); the disposer frees the name again (D2.12). */
  register(def: AnyToolDefinition): () => void
  /** Narrows the inherited view of this scope and its descendants (R3). */
  restrict(rule: RestrictRule): () => void
  /** Declares this scope's mode (M1.2); a second declaration conflicts (M1.3). */
  presentAs(mode: ToolMode): () => void
  /** `runtime.guard(fn, { scope: this })` (R5.3). */
  guard(fn: Guard): () => void
  /** Removes everything registered through this scope and leaves an empty link (R1.4). */
  dispose(): void
}

class Scope implements RuntimeScope {
  readonly #core: RuntimeCore
  readonly #record: ScopeRecord
  readonly parent: RuntimeScope | undefined

  constructor(core: RuntimeCore, parent: RuntimeScope | undefined, parentRecord: ScopeRecord | undefined) {
    this.#core = core
    this.parent = parent
    this.#record = new ScopeRecord(parentRecord, this)
    core.records.set(this, this.#record)
    // Executions and results are deep-frozen; a scope they point at must stay usable (J2.2).
    markUnfreezable(this)
  }

  register(def: AnyToolDefinition): () => void {
    return this.#core.registry.register(this.#record, def)
  }

  restrict(rule: RestrictRule): () => void {
    return this.#core.registry.restrict(this.#record, rule)
  }

  presentAs(mode: ToolMode): () => void {
    return this.#core.registry.presentAs(this.#record, mode)
  }

  guard(fn: Guard): () => void {
    return this.#core.addGuard(fn, undefined, this.#core.registrationRecord(this, 'scope'))
  }

  dispose(): void {
    this.#core.registry.dispose(this.#record)
  }
}

/** Creates a scope of `core` chained to `parent` (R1.1); `parent` must be a live scope of it (R1.3). */
export function createScope(core: RuntimeCore, parent: unknown): RuntimeScope {
  if (parent === undefined) return new Scope(core, undefined, undefined)
  const record = core.registrationRecord(parent, 'scope() parent')
  return new Scope(core, parent as RuntimeScope, record)
}
