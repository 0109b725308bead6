// @ts-check
/**
 * How the worker charges log lines against `maxOutputBytes` (X8.9, X8.17); the host counts
 * each line it receives the same way.
 */

/** The marker that ends a log line cut to fit the output budget (X8.17). */
export const CUT_MARK = '…[cut]'

/**
 * The output bytes one log line costs: its UTF-8 bytes plus one for the line break, so an
 * empty line is not free. A lone surrogate counts as the 3 bytes of its replacement character.
 * @param {string} line
 */
export function lineCost(line) {
  return Buffer.byteLength(line) + 1
}

/**
 * The longest prefix of `line` that, followed by `CUT_MARK`, costs at most `budget` bytes,
 * with the mark appended; `undefined` when not even the mark fits. A surrogate pair is never
 * split.
 * @param {string} line
 * @param {number} budget
 * @returns {string | undefined}
 */
export function cutLine(line, budget) {
  let room = budget - lineCost(CUT_MARK)
  if (room < 0) return undefined
  let end = 0
  while (end < line.length) {
    const unit = line.charCodeAt(end)
    let width = 1
    let bytes = 3
    if (unit < 0x80) bytes = 1
    else if (unit < 0x800) bytes = 2
    else if (unit <= 0xdbff && unit >= 0xd800 && (line.charCodeAt(end + 1) & 0xfc00) === 0xdc00) {
      bytes = 4
      width = 2
    }
    if (bytes > room) break
    room -= bytes
    end += width
  }
  return `${line.slice(0, end)}${CUT_MARK}`
}
