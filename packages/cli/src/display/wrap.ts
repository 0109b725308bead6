/**
 * `line` broken into lines of at most `width` columns (one column per code point), continuation
 * lines starting with `indent`. Breaks after a space or a comma where one falls in the second
 * half of a line, anywhere else otherwise. `width` undefined, or too narrow to hold the indent
 * and some text, returns `[line]` unchanged.
 */
export function wrapLine(line: string, width: number | undefined, indent: string): string[] {
  const chars = [...line]
  if (width === undefined || chars.length <= width || width - indent.length < 10) return [line]
  const lines: string[] = []
  let rest = chars
  let prefix: string[] = []
  while (prefix.length + rest.length > width) {
    const room = width - prefix.length
    let cut = room
    for (let i = room; i > room / 2; i--) {
      if (rest[i - 1] === ' ' || rest[i - 1] === ',') {
        cut = i
        break
      }
    }
    lines.push([...prefix, ...rest.slice(0, cut)].join(''))
    rest = rest.slice(cut)
    prefix = [...indent]
  }
  lines.push([...prefix, ...rest].join(''))
  return lines
}
