/**
 * `createToolRuntime` and the ToolRuntime it returns (docs/architecture.md, "The public API at a
 * glance"; SPEC R, M, P).
 */

import type { RunCodeHost } from './code-mode/host.js'
import { runCodeDefinition } from './code-mode/run-code.js'
import type { AnyToolDefinition } from './contract/definition.js'
import type { ExecuteInput } from './contract/execution.js'
import type {
  AroundHandler,
  Guard,
  HookOptions,
  LogListener,
  PostExecuteHandler,
  PreExecuteHandler,
  ProgressListener,
  ResultObserver,
} from './contract/hooks.js'
import type { ToolResult } from './contract/result.js'
import type { ToolView } from './contract/tool-view.js'
import { definitionError } from './foundation/errors.js'
import type { JsonValue } from './foundation/lossless-json.js'
import { resolveOptions, type ToolRuntimeOptions } from './pipeline/options.js'
import { execute } from './pipeline/pipeline.js'
import { RuntimeCore } from './pipeline/runtime-core.js'
import { entryOf, Registry, type ScopeRecord } from './registry/registry.js'
import { createScopeView } from './registry/scope-view.js'
import {
  type BindableTool,
  bindGuard,
  bindPostExecute,
  bindPreExecute,
  type ToolGuard,
  type ToolPostExecuteHandler,
  type ToolPreExecuteHandler,
} from './registry/tool-hooks.js'
import { createScope, type RuntimeScope } from './runtime-scope.js'
import { TIMEOUT_WRAPPER } from './wrappers/timeout.js'

/** The tool runtime: a registry with scopes and modes, hooks, views and the pipeline. */
export interface ToolRuntime {
  /** Registers in the global layer (R1.2); returns an idempotent disposer (D2.12). */
  register(def: AnyToolDefinition): () => void
  /** Creates a scope chained to `parent`, or to the global layer (R1.1, R1.3). */
  scope(options?: { parent?: RuntimeScope }): RuntimeScope
  /** The live view of `scope`, or the global view without one (R2.4, R4.1). */
  view(scope?: RuntimeScope): ToolView
  /** Runs one call through the pipeline; resolves with exactly one frozen result (P2.1). */
  execute(input: ExecuteInput): Promise<ToolResult>
  /** Adds a pre-execute handler (P3.1); first registered is outermost (P1.2). */
  onPreExecute(handler: PreExecuteHandler, options?: HookOptions): () => void
  /** Adds a pre-execute handler for the calls of `tool` only, typed by it (P14.1). */
  onPreExecute<Args>(
    tool: BindableTool<Args>,
    handler: ToolPreExecuteHandler<Args>,
    options?: HookOptions,
  ): () => void
  /** Adds a guard (P5); with `{ scope }` it belongs to that scope's layer (R5.3). */
  guard(guard: Guard, options?: HookOptions): () => void
  /** Adds a guard for the calls of `tool` only, typed by it (P14.1). */
  guard<Args>(tool: BindableTool<Args>, guard: ToolGuard<Args>, options?: HookOptions): () => void
  /** Adds an around handler (P6.1); the built-in timeout is installed first (P7.1). */
  wrapExecute(handler: AroundHandler, options?: HookOptions): () => void
  /** Adds a post-execute handler (P10.1). */
  onPostExecute(handler: PostExecuteHandler, options?: HookOptions): () => void
  /** Adds a post-execute handler for the results of `tool` only, typed by it (P14.1). */
  onPostExecute<Args, Value extends JsonValue>(
    tool: BindableTool<Args, Value>,
    handler: ToolPostExecuteHandler<Args, Value>,
    options?: HookOptions,
  ): () => void
  /** Adds a result observer (P12.1). */
  onResult(observer: ResultObserver, options?: HookOptions): () => void
  /** Adds a progress listener (P8.11). */
  onProgress(listener: ProgressListener, options?: HookOptions): () => void
  /** Adds a log listener (P8.12); one returning `true` takes the entry from `reportError`. */
  onLog(listener: LogListener, options?: HookOptions): () => void
  /**
   * Calls `listener` synchronously after every registration, unregistration, restriction,
   * mode declaration or scope disposal, i.e. whenever some view may have changed (Y1.9).
   * The listener learns only that; it re-reads the views it cares about. Returns a disposer.
   */
  onRegistryChange(listener: () => void): () => void
}

/** True iff a hook registration's first argument is an object: the tool of a per-tool hook (P14.1). */
function isToolLike(first: unknown): boolean {
  return first !== null && typeof first === 'object'
}

class Runtime implements ToolRuntime {
  readonly #core: RuntimeCore
  readonly #views = new WeakMap<ScopeRecord, ToolView>()
  readonly #globalView: ToolView

  constructor(core: RuntimeCore) {
    this.#core = core
    this.#globalView = createScopeView(core.registry, undefined)
  }

  register(def: AnyToolDefinition): () => void {
    return this.#core.registry.register(undefined, def)
  }

  scope(options?: { parent?: RuntimeScope }): RuntimeScope {
    if (options === undefined) return createScope(this.#core, undefined)
    if (options === null || typeof options !== 'object')
      throw definitionError('scope() options must be an object')
    for (const key of Object.keys(options)) {
      if (key !== 'parent') throw definitionError(`scope() does not know the option "${key}"`)
    }
    return createScope(this.#core, options.parent)
  }

  view(scope?: RuntimeScope): ToolView {
    if (scope === undefined) return this.#globalView
    const record = this.#core.registrationRecord(scope, 'view() scope', { allowDisposed: true })
    let view = this.#views.get(record)
    if (view === undefined) {
      view = createScopeView(this.#core.registry, record)
      this.#views.set(record, view)
    }
    return view
  }

  execute(input: ExecuteInput): Promise<ToolResult> {
    return execute(this.#core, input)
  }

  onPreExecute(first: unknown, second?: unknown, third?: unknown): () => void {
    if (!isToolLike(first)) return this.#core.addHook(this.#core.pre, first, second, 'onPreExecute')
    return this.#core.addHook(this.#core.pre, bindPreExecute(first, second), third, 'onPreExecute')
  }

  guard(first: unknown, second?: unknown, third?: unknown): () => void {
    if (!isToolLike(first)) return this.#core.addGuard(first, second)
    return this.#core.addGuard(bindGuard(first, second), third)
  }

  wrapExecute(handler: AroundHandler, options?: HookOptions): () => void {
    return this.#core.addHook(this.#core.around, handler, options, 'wrapExecute')
  }

  onPostExecute(first: unknown, second?: unknown, third?: unknown): () => void {
    if (!isToolLike(first)) return this.#core.addHook(this.#core.post, first, second, 'onPostExecute')
    return this.#core.addHook(this.#core.post, bindPostExecute(first, second), third, 'onPostExecute')
  }

  onResult(observer: ResultObserver, options?: HookOptions): () => void {
    return this.#core.addHook(this.#core.observers, observer, options, 'onResult')
  }

  onProgress(listener: ProgressListener, options?: HookOptions): () => void {
    return this.#core.addHook(this.#core.progress, listener, options, 'onProgress')
  }

  onLog(listener: LogListener, options?: HookOptions): () => void {
    return this.#core.addHook(this.#core.logs, listener, options, 'onLog')
  }

  onRegistryChange(listener: () => void): () => void {
    if (typeof listener !== 'function') throw definitionError('onRegistryChange listener must be a function')
    const core = this.#core
    const registry = core.registry
    // Each registration is its own entry, so one function registered twice disposes one at a time;
    // a throwing listener goes to reportError, since it cannot undo the change it heard about.
    const entry = () => {
      try {
        listener()
      } catch (error) {
        core.report(error)
      }
    }
    registry.changeListeners = [...registry.changeListeners, entry]
    return () => {
      registry.changeListeners = registry.changeListeners.filter((l) => l !== entry)
    }
  }
}

/**
 * Creates a ToolRuntime. Every option is validated and a bad value throws
 * `INVALID_DEFINITION` (M1.1, P11.8, X6.2); the built-in timeout wrapper is installed as the
 * first, outermost `wrapExecute` handler unless `{ timeout: false }` (P7.1).
 */
export function createToolRuntime(options?: ToolRuntimeOptions): ToolRuntime {
  const resolved = resolveOptions(options)
  let runtime: Runtime | undefined
  const host: RunCodeHost = {
    callInputs(token) {
      const call = core.live.get(token)
      return call === undefined
        ? undefined
        : {
            codeRuntime: call.codeRuntime,
            onCodeDispatch: call.onCodeDispatch,
            approver: call.approver,
            elicitor: call.elicitor,
            scope: call.exec.scope,
          }
    },
    defaultCodeRuntime: resolved.codeRuntime,
    maxParallelSubCalls: resolved.maxParallelSubCalls,
    reportError: (error) => core.report(error),
    execute: (input) => execute(core, input),
    view: (scope) => runtime!.view(scope as RuntimeScope | undefined),
  }
  const core = new RuntimeCore(new Registry(resolved.mode, entryOf(runCodeDefinition(host))), resolved)
  if (resolved.timeout) core.around.add(TIMEOUT_WRAPPER, undefined)
  runtime = new Runtime(core)
  return runtime
}
