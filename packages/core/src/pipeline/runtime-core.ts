/**
 * The internal state of one ToolRuntime, shared by the public class, the scopes, the views
 * and the pipeline stages. Not exported from the package.
 */
import type { CodeDispatchSink, CodeRuntime } from '../contract/code-runtime.js'
import type { Elicitor } from '../contract/elicitation.js'
import type { Approver, Execution } from '../contract/execution.js'
import type * as Hooks from '../contract/hooks.js'
import { definitionError } from '../foundation/errors.js'
import { HookList, scopedDisposer } from '../registry/hook-list.js'
import { disposedError, type Registry, type ScopeRecord } from '../registry/registry.js'
import type { ResolvedOptions } from './options.js'

/** What the runtime keeps of a call in progress: the Code Mode inputs it read at entry (X1.6). */
export interface LiveCall {
  readonly exec: Execution
  readonly record: ScopeRecord | undefined
  readonly approver: Approver | undefined
  readonly elicitor: Elicitor | undefined
  readonly codeRuntime: CodeRuntime | undefined
  readonly onCodeDispatch: CodeDispatchSink | undefined
}

/** The shared state of one runtime. */
export class RuntimeCore {
  readonly records = new WeakMap<object, ScopeRecord>()
  readonly pre = new HookList<Hooks.PreExecuteHandler>()
  /** Guards registered without a scope, in registration order (copy-on-write, P5.3). */
  guards: readonly Hooks.Guard[] = []
  readonly around = new HookList<Hooks.AroundHandler>()
  readonly post = new HookList<Hooks.PostExecuteHandler>()
  readonly observers = new HookList<Hooks.ResultObserver>()
  readonly progress = new HookList<Hooks.ProgressListener>()
  readonly logs = new HookList<Hooks.LogListener>()
  /** Executions in progress, by token (I1.2 `parent` check, per-call Code Mode inputs). */
  readonly live = new Map<symbol, LiveCall>()

  constructor(
    readonly registry: Registry,
    readonly options: ResolvedOptions,
  ) {}

  /** Reports a contained error through `reportError` (P12.3); a throwing reporter is ignored. */
  report(error: unknown): void {
    try {
      this.options.reportError(error)
    } catch {
      // The reporter is the last resort; nothing is left to tell.
    }
  }

  /**
   * The record of `scope` for a registration (R1.3, R5.1): throws `INVALID_DEFINITION`
   * when it is not a scope of this runtime or, unless `allowDisposed`, when it was disposed.
   */
  registrationRecord(scope: unknown, what: string, { allowDisposed = false } = {}): ScopeRecord {
    const record = typeof scope === 'object' && scope !== null ? this.records.get(scope) : undefined
    if (record === undefined) throw definitionError(`${what} must be a scope of this runtime`)
    if (!allowDisposed && record.disposed) throw disposedError()
    return record
  }

  /** The scope named by hook options (R5.1); `undefined` for an unscoped registration. */
  private optionScope(options: unknown, what: string): ScopeRecord | undefined {
    if (options === undefined) return undefined
    if (options === null || typeof options !== 'object')
      throw definitionError(`${what} options must be an object`)
    const scope = (options as Hooks.HookOptions).scope
    return scope === undefined ? undefined : this.registrationRecord(scope, `${what} options.scope`)
  }

  /** Registers a handler of one of the chained or observer kinds (R5.1, R5.4). */
  addHook<H>(list: HookList<H>, fn: unknown, options: unknown, what: string): () => void {
    if (typeof fn !== 'function') throw definitionError(`${what} handler must be a function`)
    return list.add(fn as H, this.optionScope(options, what))
  }

  /** Registers a guard globally or in a scope layer (P5.3, R5.3). */
  addGuard(fn: unknown, options: unknown, record?: ScopeRecord): () => void {
    if (typeof fn !== 'function') throw definitionError('guard handler must be a function')
    const target = record ?? this.optionScope(options, 'guard')
    if (target?.disposed === true) throw disposedError()
    const guard = fn as Hooks.Guard
    // Each registration is its own entry, so registering one function twice disposes one at a time.
    const entry: Hooks.Guard = (exec) => guard(exec)
    if (target === undefined) {
      this.guards = [...this.guards, entry]
      return scopedDisposer(undefined, () => {
        this.guards = this.guards.filter((g) => g !== entry)
      })
    }
    target.guards = [...target.guards, entry]
    return scopedDisposer(target, () => {
      target.guards = target.guards.filter((g) => g !== entry)
    })
  }
}
