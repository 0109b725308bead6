/** One line of a shown diff: kept, added or removed. */
export interface DiffLine {
  readonly op: ' ' | '+' | '-'
  readonly text: string
}

/** Above this many old × new lines the diff shows the old text removed and the new one added. */
const MAX_CELLS = 4_000_000

/**
 * The lines of a diff from `oldText` to `newText` (G3.2): a longest-common-subsequence line diff,
 * every line added for a new file (`oldText` null). Files too big for the table show all old lines
 * removed and all new lines added, which is still exact, only longer.
 */
export function lineDiff(oldText: string | null, newText: string): DiffLine[] {
  const next = newText.split('\n')
  if (oldText === null) return next.map((text) => ({ op: '+', text }))
  const old = oldText.split('\n')
  if (old.length * next.length > MAX_CELLS) {
    return [
      ...old.map((text) => ({ op: '-' as const, text })),
      ...next.map((text) => ({ op: '+' as const, text })),
    ]
  }
  const width = next.length + 1
  // lengths[i * width + j]: the LCS length of old[i..] and next[j..].
  const lengths = new Uint32Array((old.length + 1) * width)
  for (let i = old.length - 1; i >= 0; i--) {
    for (let j = next.length - 1; j >= 0; j--) {
      lengths[i * width + j] =
        old[i] === next[j]
          ? lengths[(i + 1) * width + j + 1]! + 1
          : Math.max(lengths[(i + 1) * width + j]!, lengths[i * width + j + 1]!)
    }
  }
  const lines: DiffLine[] = []
  let i = 0
  let j = 0
  while (i < old.length || j < next.length) {
    if (i < old.length && j < next.length && old[i] === next[j]) {
      lines.push({ op: ' ', text: old[i++]! })
      j++
    } else if (
      j < next.length &&
      (i === old.length || lengths[i * width + j + 1]! >= lengths[(i + 1) * width + j]!)
    ) {
      lines.push({ op: '+', text: next[j++]! })
    } else {
      lines.push({ op: '-', text: old[i++]! })
    }
  }
  return lines
}
