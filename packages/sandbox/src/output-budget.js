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
  const room = budget - lineCost(CUT_MARK)
  if (room < 0) return undefined
  // `encodeInto` stops before a character that would not fit whole.
  const { read } = new TextEncoder().encodeInto(line, new Uint8Array(room))
  return `${line.slice(0, read)}${CUT_MARK}`
}
