import type { CallView, ContentBlock, ResultView } from '@tooltx/core'
import { counted } from './counted.js'
import { plainTitle } from './terminal-text.js'

const MAX_LINES = 8

/** Terminal lines for content blocks: text as is (at most a few lines), other blocks as a note. */
function contentLines(content: readonly ContentBlock[] | undefined): string[] {
  const lines: string[] = []
  for (const block of content ?? []) {
    if (block.type === 'text' && typeof block.text === 'string') lines.push(...block.text.split('\n'))
    else lines.push(`[${block.type} content]`)
  }
  return clip(lines)
}

function clip(lines: string[]): string[] {
  return lines.length <= MAX_LINES
    ? lines
    : [...lines.slice(0, MAX_LINES), `… ${counted(lines.length - MAX_LINES, 'more line')}`]
}

/** The one-line title of a call card, e.g. `Read README.md  [read]`. */
export function callTitle(view: CallView): string {
  const title = plainTitle(view.title)
  if (view.card === 'generic' && view.kind !== undefined) return `${title}  [${view.kind}]`
  if (view.card === 'terminal') return `$ ${title}`
  return title
}

/** The lines a call card shows under its title. */
export function callBody(view: CallView): string[] {
  if (view.card === 'diff') {
    return clip(
      view.diffs.flatMap((diff) => [
        `${diff.oldText === null ? 'new file' : 'modified'}: ${diff.path}`,
        ...diff.newText.split('\n').map((line) => `+ ${line}`),
      ]),
    )
  }
  if (view.card === 'generic' && view.rawInput !== undefined) return [view.rawInput]
  return []
}

/** The lines a result card shows. */
export function resultBody(view: ResultView): string[] {
  switch (view.card) {
    case 'generic':
      return contentLines(view.content)
    case 'terminal':
      return clip([
        ...(view.output ?? '').trimEnd().split('\n'),
        ...(view.exitCode !== undefined ? [`exit code ${view.exitCode}`] : []),
      ])
    case 'diff':
      return view.diffs.map((diff) => `wrote ${diff.path}`)
    case 'search':
      if (view.shape === 'paths') {
        return clip([...view.paths, ...(view.truncated ? [`(${view.total} in all)`] : [])])
      }
      return clip([
        ...view.files.flatMap((file) => file.matches.map((m) => `${file.path}:${m.line}  ${m.text}`)),
        counted(view.total, 'match', 'matches'),
      ])
    case 'read':
      return clip([
        ...view.lines.map((line) => `${String(line.number).padStart(4)}  ${line.text}`),
        `(${view.path}: ${view.lines.length} of ${counted(view.totalLines, 'line')})`,
      ])
    case 'web':
      return view.kind === 'fetch'
        ? [`${view.url} → ${view.statusCode}`]
        : view.sources.map((source) => source.title ?? source.url)
  }
}
