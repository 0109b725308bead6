/**
 * How the CLI shows the arguments of a call put to a person for approval (K5.6): one function
 * for the terminal prompt (K2.1), `tooltx approvals` (K5.2) and `tooltx approve` (K5.3), so no
 * place can show less than the others.
 */

/** Arguments of at most this many characters (code points) are always shown whole. */
export const WHOLE_ARGUMENT_CHARS = 2_000
/** Of longer arguments, this many characters from the start and as many from the end are shown. */
export const ARGUMENT_EDGE_CHARS = 800

/** Where, and how, a person can see the whole of arguments shown cut. */
export interface ArgumentsShown {
  /** The digest of the arguments (F2.2), shown with a cut so the whole can be matched to it. */
  readonly digest: string
  /**
   * How to see them whole (a command, an answer to type); without it they are shown whole
   * however long they are.
   */
  readonly whole?: string
}

/**
 * The lines that show `raw`, a call's raw argument text, to a person deciding it: the whole text
 * on one `arguments: ` line when it is at most `WHOLE_ARGUMENT_CHARS` characters or `shown.whole`
 * is absent; else its first and last `ARGUMENT_EDGE_CHARS` characters, a line between them
 * saying how many characters are not shown, and a line with the digest and `shown.whole`. It
 * never shows a part without saying that, and where, a part is missing, and never cuts inside a
 * character, so padding cannot push part of the arguments out of view unnoticed. The lines are
 * raw text: the caller prints them through `terminalSafe` (every `Output` does).
 */
export function argumentLines(raw: string, shown: ArgumentsShown): string[] {
  const chars = [...raw]
  if (shown.whole === undefined || chars.length <= WHOLE_ARGUMENT_CHARS) return [`arguments: ${raw}`]
  const hidden = chars.length - 2 * ARGUMENT_EDGE_CHARS
  const count = (n: number) => n.toLocaleString('en-US')
  return [
    `arguments (${count(chars.length)} characters; the ${count(hidden)} in the middle are not shown here):`,
    `  ${chars.slice(0, ARGUMENT_EDGE_CHARS).join('')}`,
    `  [… ${count(hidden)} characters not shown …]`,
    `  ${chars.slice(-ARGUMENT_EDGE_CHARS).join('')}`,
    `to see these arguments (digest ${shown.digest}) whole, ${shown.whole}`,
  ]
}

/**
 * The lines that show the reason an ask recorded (`tooltx approvals`, `tooltx approve`):
 * `reason: <first line>`, then each further line — the diff a write or edit was asked about
 * with (K2.15) — indented by two spaces more; none without a reason. Raw text, as above.
 */
export function reasonLines(reason: string | undefined): string[] {
  if (reason === undefined) return []
  const [first, ...more] = reason.split('\n')
  return [`reason: ${first}`, ...more.map((line) => `  ${line}`)]
}
