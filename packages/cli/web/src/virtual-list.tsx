import type { ComponentChild } from 'preact'
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks'

/** What a parent can ask of a `VirtualList`: bring a row on screen. */
export interface ListController {
  scrollToIndex?: (index: number) => void
}

interface VirtualListProps<T> {
  readonly items: readonly T[]
  readonly keyOf: (item: T) => string
  /** The height a row is assumed to have until it has been measured (px). */
  readonly estimate: (item: T) => number
  readonly render: (item: T, index: number) => ComponentChild
  readonly label: string
  readonly controller: ListController
}

/** Rows rendered beyond the visible area on each side (px), so a fast scroll shows no gaps. */
const OVERSCAN = 800

/** The first index whose row ends below `y`. */
function firstBelow(offsets: Float64Array, y: number): number {
  let low = 0
  let high = offsets.length - 1
  while (low < high) {
    const mid = (low + high) >> 1
    if (offsets[mid + 1]! > y) high = mid
    else low = mid + 1
  }
  return low
}

/**
 * A scrolling list that renders only the rows near the visible area (G3.4), so a session of a
 * hundred thousand events opens and scrolls as fast as a short one. Rows are measured once shown;
 * until then their estimated height stands in.
 */
export function VirtualList<T>(props: VirtualListProps<T>) {
  const { items, keyOf, estimate, render, label, controller } = props
  const scroller = useRef<HTMLDivElement>(null)
  const heights = useRef(new Map<string, number>())
  const [scrollTop, setScrollTop] = useState(0)
  const [viewport, setViewport] = useState(800)
  // Bumped when a row's measured height changes, so the offsets are summed again.
  const [measured, setMeasured] = useState(0)

  const offsets = useMemo(() => {
    const result = new Float64Array(items.length + 1)
    for (let i = 0; i < items.length; i++) {
      const item = items[i]!
      result[i + 1] = result[i]! + (heights.current.get(keyOf(item)) ?? estimate(item))
    }
    return result
  }, [items, keyOf, estimate, measured])

  const observer = useMemo(() => {
    let frame = 0
    const observer = new ResizeObserver((records) => {
      let changed = false
      for (const record of records) {
        const element = record.target as HTMLElement
        // A row scrolled away is reported with no size: it keeps the height it was shown with.
        if (!element.isConnected) {
          observer.unobserve(element)
          continue
        }
        const key = element.dataset.key!
        const height = element.offsetHeight
        if (heights.current.get(key) !== height) {
          heights.current.set(key, height)
          changed = true
        }
      }
      if (changed && frame === 0) {
        frame = requestAnimationFrame(() => {
          frame = 0
          setMeasured((n) => n + 1)
        })
      }
    })
    return observer
  }, [])
  useEffect(() => () => observer.disconnect(), [observer])

  useLayoutEffect(() => {
    const element = scroller.current!
    const resize = new ResizeObserver(() => setViewport(element.clientHeight))
    resize.observe(element)
    setViewport(element.clientHeight)
    return () => resize.disconnect()
  }, [])

  controller.scrollToIndex = (index) => {
    const element = scroller.current
    if (element === null || index < 0 || index >= items.length) return
    const top = offsets[index]!
    const bottom = offsets[index + 1]!
    if (top < element.scrollTop) element.scrollTop = top
    else if (bottom > element.scrollTop + element.clientHeight)
      element.scrollTop = bottom - element.clientHeight
    setScrollTop(element.scrollTop)
  }

  const total = offsets[items.length]!
  const first = items.length === 0 ? 0 : firstBelow(offsets, Math.max(0, scrollTop - OVERSCAN))
  let last = first
  while (last < items.length && offsets[last]! < scrollTop + viewport + OVERSCAN) last++

  const shown: ComponentChild[] = []
  for (let i = first; i < last; i++) {
    const item = items[i]!
    const key = keyOf(item)
    shown.push(
      <li
        key={key}
        class="row"
        data-key={key}
        data-index={i}
        style={{ transform: `translateY(${offsets[i]}px)` }}
        ref={(element) => {
          if (element !== null) observer.observe(element)
        }}
      >
        {render(item, i)}
      </li>,
    )
  }
  return (
    <div class="scroller" ref={scroller} onScroll={(event) => setScrollTop(event.currentTarget.scrollTop)}>
      <ul class="rows" aria-label={label} style={{ height: `${total}px` }}>
        {shown}
      </ul>
    </div>
  )
}
