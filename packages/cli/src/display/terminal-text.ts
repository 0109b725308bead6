/**
 * The characters a terminal may act on rather than show: C0 controls except tab and newline
 * (so also CR, BS and ESC), DEL, C1 controls, and the bidirectional marks, embeddings,
 * overrides and isolates that reorder what is read.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g

/**
 * Text from a model, a tool or a log, made safe to print: every unsafe character is replaced
 * by its visible escape (`\x1b`, `\x07`, `\u202e`), so what is printed can neither move the
 * cursor, clear the screen, retitle the window, draw a fake prompt nor reorder a line. Tabs and
 * newlines are kept; everything else is unchanged. Total: never throws.
 */
export function terminalSafe(text: string): string {
  return text.replace(UNSAFE, (char) => {
    const code = char.charCodeAt(0)
    return code <= 0xff
      ? `\\x${code.toString(16).padStart(2, '0')}`
      : `\\u${code.toString(16).padStart(4, '0')}`
  })
}

/**
 * The escape sequences a program writes to drive a terminal: CSI (`ESC [ … letter`, colours
 * and cursor moves, also as the one-byte C1 CSI), OSC (`ESC ] … BEL` or `ESC ] … ESC \`,
 * window titles and links), and any other `ESC` and the character after it.
 */
const ESCAPES =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding escape sequences is the point
  /(?:\u001b\[|\u009b)[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|\u001b[\s\S]?/g

/**
 * `text` as a one-line title (G3.9): without terminal escape sequences (a colour code in a
 * command or a message is not shown as `\x1b[31m`), its other unsafe characters dropped and
 * each run of whitespace one space. Total: never throws.
 */
export function plainTitle(text: string): string {
  return text.replace(ESCAPES, '').replace(UNSAFE, '').replace(/\s+/g, ' ').trim()
}
