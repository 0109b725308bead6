import type { AnyToolDefinition, DurableResult, JsonValue, ToolView } from '@tooltx/core'
import { RUN_CODE } from '@tooltx/core/internal'
import type { SessionEvent } from '@tooltx/session'
import type { DefinitionLookup } from './session-display.js'

/** The `meta` of a success of a definition made by `withPresenter`: the presenter id and the tool's own meta. */
interface TaggedMeta {
  readonly presenter: string
  readonly meta?: JsonValue
}

// Keyed by the signing `presentationMeta` function: a registry keeps a copy of a definition,
// but the very same function objects.
const presenters = new WeakMap<object, string>()

/** The presenter id `def`'s results record, when it was made by `withPresenter`. */
function presenterOf(def: AnyToolDefinition): string | undefined {
  const meta = def.output?.presentationMeta
  return meta === undefined ? undefined : presenters.get(meta)
}

/**
 * The definition `def` with its results signed by presenter `id`: every success records
 * `{ presenter: id, meta? }` as its `meta` (`meta` being what `def`'s own `presentationMeta`
 * returned), and its `presentResult` sees `def`'s own meta again. The log then says which
 * presenter built a call's cards, so a replay never takes another tool of the same name for it.
 */
export function withPresenter<D extends AnyToolDefinition>(id: string, def: D): D {
  const own = def.output.presentationMeta
  const presentResult = def.presentResult
  const presentationMeta = (args: unknown, value: JsonValue): JsonValue => {
    const meta = own?.(args, value)
    return meta === undefined ? { presenter: id } : { presenter: id, meta }
  }
  presenters.set(presentationMeta, id)
  const signed: AnyToolDefinition = {
    ...def,
    output: Object.freeze({ ...def.output, presentationMeta }),
    ...(presentResult === undefined
      ? {}
      : {
          presentResult: (args: unknown, result: DurableResult) => {
            const inner = (result.meta as TaggedMeta | undefined)?.meta
            const { meta: _signed, ...rest } = result
            return presentResult(args, inner === undefined ? rest : { ...rest, meta: inner })
          },
        }),
  }
  return Object.freeze(signed) as D
}

/** The presenter id a result's `meta` records, or `undefined` when it records none. Total. */
export function recordedPresenter(meta: JsonValue | undefined): string | undefined {
  if (meta === null || typeof meta !== 'object' || Array.isArray(meta)) return undefined
  const presenter = (meta as Partial<TaggedMeta>).presenter
  return typeof presenter === 'string' ? presenter : undefined
}

/**
 * The lookup a live timeline uses: a tool's definition from `view` when its results record a
 * presenter (`withPresenter`), and the Code Mode transport, whose name is reserved; any other
 * tool gets generic cards, exactly as a replay of its log would show it.
 */
export function liveLookup(view: ToolView): DefinitionLookup {
  return (name) => {
    const def = view.get(name)
    return def !== undefined && (name === RUN_CODE || presenterOf(def) !== undefined) ? def : undefined
  }
}

/**
 * The lookup a replay uses: for each tool name, the definition in `known` whose presenter id
 * the log's results of that tool recorded, and `known`'s Code Mode transport for `run_code`.
 * A tool whose results record no presenter in `known` gets generic cards, whatever its name.
 */
export function recordedLookup(
  events: readonly SessionEvent[],
  known: readonly AnyToolDefinition[],
): DefinitionLookup {
  const byId = new Map<string, AnyToolDefinition>()
  for (const def of known) {
    const id = presenterOf(def)
    if (id !== undefined) byId.set(id, def)
  }
  const byName = new Map<string, AnyToolDefinition>()
  for (const event of events) {
    if (event.type !== 'tool/result') continue
    const def = byId.get(recordedPresenter(event.data.meta) ?? '')
    if (def !== undefined && def.name === event.data.name) byName.set(event.data.name, def)
  }
  const transport = known.find((def) => def.name === RUN_CODE)
  return (name) => (name === RUN_CODE ? transport : byName.get(name))
}
