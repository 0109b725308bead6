import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks'
import { type DisplayEntry, fetchSession, followSession } from './api.js'
import { Card } from './cards.js'
import { cardTools, filterRows, type Row, type RowFilter, SessionRows } from './rows.js'
import { type ListController, VirtualList } from './virtual-list.js'

/** How many entries the first request loads: a screenful and more, so a long session opens at once. */
const FIRST_ENTRIES = 1000

/** How many entries each later request loads. */
const MORE_ENTRIES = 20_000

const keyOf = (row: Row): string => row.key

const estimate = (row: Row): number => (row.type === 'card' ? 46 : row.type === 'message' ? 52 : 36)

/** The seq a `#e<seq>` fragment links to, or `undefined`. */
function linkedSeq(): number | undefined {
  const match = /^#e(\d+)$/.exec(location.hash)
  return match === null ? undefined : Number(match[1])
}

/** A non-card row: a turn or step heading, a message or context, a turn's end. */
function PlainRow({ row }: { row: Exclude<Row, { type: 'card' }> }) {
  switch (row.type) {
    case 'turn':
      return (
        <h2 id={`e${row.entry.seq}`} class="turn">
          Turn {row.turn}
        </h2>
      )
    case 'step':
      return (
        <h3 id={`e${row.entry.seq}`} class="step">
          Step {row.entry.step}
        </h3>
      )
    case 'turn-end':
      return (
        <p id={`e${row.entry.seq}`} class={`turn-end reason-${row.entry.reason}`}>
          Turn {row.turn} {row.entry.reason}
          {row.entry.message ? `: ${row.entry.message}` : ''}
        </p>
      )
    case 'note':
      return (
        <p id={`e${row.entry.seq}`} class={`note ${row.entry.what}`}>
          {row.entry.text}
        </p>
      )
    case 'message': {
      const { role, source, text, seq } = row.entry
      const label = role === 'context' ? `context from ${source}` : role
      return (
        <div id={`e${seq}`} class={`message ${role}`}>
          <span class="who">{label}</span>
          {row.entry.reasoning?.map((line) => (
            <p class="reasoning">{line}</p>
          ))}
          {text === '' ? null : <p>{text}</p>}
          <a class="anchor" href={`#e${seq}`} aria-label={`link to message ${seq}`}>
            #{seq}
          </a>
        </div>
      )
    }
  }
}

/** The session page (G3.2–G3.4, G4.1): the session's rows, filters, and live follow. */
export function SessionPage({ id }: { id: string }) {
  const model = useRef(new SessionRows())
  const [rows, setRows] = useState<readonly Row[]>([])
  const [error, setError] = useState<string | undefined>()
  const [loaded, setLoaded] = useState(false)
  const [complete, setComplete] = useState(false)
  const shownTarget = useRef<number | undefined>(undefined)
  const [idle, setIdle] = useState(true)
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set())
  const [filter, setFilter] = useState<RowFilter>({ failuresOnly: false, tool: undefined, turn: undefined })
  const [target, setTarget] = useState<number | undefined>(linkedSeq())
  const [focusKey, setFocusKey] = useState<string | undefined>()
  const controller = useRef<ListController>({}).current

  useEffect(() => {
    let stop = () => {}
    const add = (reset: boolean, entries: DisplayEntry[]) => {
      if (reset) model.current = new SessionRows()
      model.current.add(entries)
      setRows([...model.current.rows])
    }
    let closed = false
    // The first screen comes first; the rest of a long session loads behind it, then the page
    // follows what lands after the events it loaded.
    const load = async () => {
      const first = await fetchSession(id, { offset: 0, limit: FIRST_ENTRIES })
      add(true, first.entries as DisplayEntry[])
      setIdle(first.idle)
      setLoaded(true)
      let offset = first.entries.length
      while (offset < first.total && !closed) {
        const more = await fetchSession(id, { offset, limit: MORE_ENTRIES, through: first.lastSeq })
        if (more.entries.length === 0) break
        add(false, more.entries as DisplayEntry[])
        offset += more.entries.length
      }
      setComplete(true)
      if (!closed) stop = followSession(id, first.lastSeq, { entries: add, idle: setIdle })
    }
    load().catch((e: Error) => setError(e.message))
    const onHash = () => setTarget(linkedSeq())
    addEventListener('hashchange', onHash)
    return () => {
      closed = true
      stop()
      removeEventListener('hashchange', onHash)
    }
  }, [id])

  const visible = useMemo(() => filterRows(rows, filter), [rows, filter])
  const tools = useMemo(
    () => [...new Set(rows.flatMap((row) => (row.type === 'card' ? cardTools(row) : [])))].sort(),
    [rows],
  )
  const turns = useMemo(() => [...new Set(rows.map((row) => row.turn))].filter((t) => t > 0), [rows])

  // A link to an event brings its row on screen, opened.
  useEffect(() => {
    if (target === undefined || !loaded || shownTarget.current === target) return
    const row = model.current.rows[model.current.rowOf(target)]
    if (row === undefined) return
    shownTarget.current = target
    if (row.type === 'card') setOpen((keys) => new Set([...keys, row.key]))
    const index = visible.findIndex((r) => r.key === row.key)
    if (index >= 0) requestAnimationFrame(() => controller.scrollToIndex?.(index))
  }, [target, loaded, visible])

  // Keyboard focus follows `focusKey` once its row is rendered.
  useEffect(() => {
    if (focusKey === undefined) return
    const button = document.querySelector<HTMLButtonElement>(`[data-key="${focusKey}"] .toggle`)
    if (button === null) return
    button.focus()
    setFocusKey(undefined)
  })

  const toggle = useCallback((key: string) => {
    setOpen((keys) => {
      const next = new Set(keys)
      if (!next.delete(key)) next.add(key)
      return next
    })
  }, [])

  /** Arrow keys and j/k move between cards; Home and End go to the first and last. */
  const onKeyDown = (event: KeyboardEvent) => {
    const from = (event.target as HTMLElement).closest<HTMLElement>('[data-index]')
    if (from === null) return
    const cards = visible.flatMap((row, i) => (row.type === 'card' ? [i] : []))
    const here = Number(from.dataset.index)
    let next: number | undefined
    if (event.key === 'ArrowDown' || event.key === 'j') next = cards.find((i) => i > here)
    else if (event.key === 'ArrowUp' || event.key === 'k') next = cards.findLast((i) => i < here)
    else if (event.key === 'Home') next = cards[0]
    else if (event.key === 'End') next = cards.at(-1)
    else return
    event.preventDefault()
    if (next === undefined) return
    controller.scrollToIndex?.(next)
    setFocusKey(visible[next]!.key)
  }

  const render = (row: Row) =>
    row.type === 'card' ? (
      <Card
        card={row}
        session={id}
        open={open.has(row.key)}
        onToggle={() => toggle(row.key)}
        highlighted={target !== undefined && row.seqs.includes(target)}
      />
    ) : (
      <PlainRow row={row} />
    )

  const cardCount = visible.filter((row) => row.type === 'card').length
  return (
    <div class="session">
      <header class="bar">
        <p class="crumbs">
          <a href="/">Sessions</a>
        </p>
        <h1>{id}</h1>
        <p class={`follow ${idle ? 'idle' : 'live'}`} role="status" aria-live="polite">
          {idle ? 'Idle: no new events' : 'Live: following new events'}
        </p>
        <form class="filters" aria-label="Filters" onSubmit={(e) => e.preventDefault()}>
          <label>
            <input
              type="checkbox"
              checked={filter.failuresOnly}
              onChange={(e) => setFilter({ ...filter, failuresOnly: e.currentTarget.checked })}
            />{' '}
            Failures only
          </label>
          <label>
            Tool{' '}
            <select
              value={filter.tool ?? ''}
              onChange={(e) => setFilter({ ...filter, tool: e.currentTarget.value || undefined })}
            >
              <option value="">all</option>
              {tools.map((tool) => (
                <option key={tool} value={tool}>
                  {tool}
                </option>
              ))}
            </select>
          </label>
          <label>
            Turn{' '}
            <select
              value={filter.turn === undefined ? '' : String(filter.turn)}
              onChange={(e) =>
                setFilter({
                  ...filter,
                  turn: e.currentTarget.value === '' ? undefined : Number(e.currentTarget.value),
                })
              }
            >
              <option value="">all</option>
              {turns.map((turn) => (
                <option key={turn} value={String(turn)}>
                  {turn}
                </option>
              ))}
            </select>
          </label>
          <span class="muted count">
            {cardCount} call{cardCount === 1 ? '' : 's'} shown{complete ? '' : ' (loading…)'}
          </span>
        </form>
      </header>
      {error !== undefined ? <p role="alert">Could not load the session: {error}</p> : null}
      {!loaded && error === undefined ? <p>Loading…</p> : null}
      <main onKeyDown={onKeyDown}>
        <VirtualList
          items={visible}
          keyOf={keyOf}
          estimate={estimate}
          render={render}
          label="Events"
          controller={controller}
        />
      </main>
    </div>
  )
}
