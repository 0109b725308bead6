import { createHash } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { argumentsDigest, type JsonValue, ToolError } from '@tooltx/core'
import { createTwoFilesPatch } from 'diff'
import { counted } from '../display/counted.js'
import type { Workspace } from './workspace.js'

/** A change a write or edit would make to one workspace file. */
export interface FileChange {
  /** The workspace-relative path, as the call named it. */
  readonly path: string
  /** The file's text now; `null` when there is no file yet. */
  readonly before: string | null
  /** The file's text after the change. */
  readonly after: string
}

/** Diff lines shown before the rest of a long diff is summed up in one line. */
const MAX_DIFF_LINES = 400

/**
 * The text of the workspace file at `path` now, `null` when nothing is there; the workspace's
 * refusals (`OUTSIDE_WORKSPACE`, `PROTECTED`) and a binary file (`NOT_TEXT`) throw.
 */
export async function currentText(
  workspace: Workspace,
  path: string,
  signal?: AbortSignal,
): Promise<string | null> {
  const file = await workspace.resolve(path).catch((error: unknown) => {
    if (error instanceof ToolError && error.code === 'NOT_FOUND') return undefined
    throw error
  })
  return file === undefined ? null : textOf(await readFile(file, { signal }), path)
}

/** `bytes` as UTF-8 text; `NOT_TEXT` for a binary file, which no diff can show. */
export function textOf(bytes: Buffer, path: string): string {
  const text = bytes.toString('utf8')
  if (text.includes('\u0000')) throw new ToolError('NOT_TEXT', `"${path}" is a binary file, not text`)
  return text
}

/** The digest of a file's text as a change was made from it (`absent`: no file). Total. */
export function contentDigest(text: string | null): string {
  return text === null ? 'absent' : createHash('sha256').update(text).digest('hex')
}

/**
 * What a person approving `change` is shown (K2.15): one line saying whether it creates a file
 * or changes an existing one, with the first 12 hex digits of the digest of the text it was
 * made from, then the true unified diff (`diff`'s `createTwoFilesPatch`, 3 lines of context)
 * against the file as it is now. A diff over 400 lines shows its first 400 and says how many
 * more there are. The text is recorded as the ask's reason, so `approvals`, the viewer and
 * `replay` show what the terminal showed.
 */
export function changePresentation(change: FileChange): string {
  const { path, before, after } = change
  const head =
    before === null
      ? `creates ${path} (a new file, ${lineCount(after)})`
      : before === after
        ? `leaves ${path} as it is (the new text is the same)`
        : `changes ${path} (${lineCount(before)} now; file sha256 ${contentDigest(before).slice(0, 12)})`
  if (before === after) return head
  const patch = createTwoFilesPatch(
    before === null ? '/dev/null' : `a/${path}`,
    `b/${path}`,
    before ?? '',
    after,
    undefined,
    undefined,
    { context: 3 },
  )
  // The patch opens with an `Index`-free `===` line and the two file names; keep the names.
  const lines = patch.split('\n').filter((line, i) => !(i === 0 && line.startsWith('===')))
  if (lines.at(-1) === '') lines.pop()
  if (lines.length <= MAX_DIFF_LINES) return [head, ...lines].join('\n')
  const more = lines.length - MAX_DIFF_LINES
  return [
    head,
    ...lines.slice(0, MAX_DIFF_LINES),
    `[… ${counted(more, 'more diff line')} not shown; the arguments hold the whole text]`,
  ].join('\n')
}

function lineCount(text: string): string {
  const lines = text === '' ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0)
  return counted(lines, 'line')
}

/**
 * What each write or edit was approved against, by call, kept between the ask (`workspaceAsks`
 * records it) and the call's body, which `check`s the file against it before it writes: the
 * digest of the text its diff was made from, or the error that kept a diff from being made.
 */
export class ChangeLedger {
  readonly #bases = new Map<symbol, string | ToolError>()
  /**
   * The reasons durable asks recorded, by call id and then by the digest of the arguments they
   * asked about, for the calls a resume is about to run: two sessions a worker resumes at once may
   * hold calls of one id, and only a call with the arguments that were asked about takes a reason.
   */
  readonly #shown = new Map<string, Map<string, string>>()

  /**
   * Before an approved durable ask of call `callId` with arguments of digest `argumentsDigest` is
   * resumed (K5.13): its decision holds only for `reason`, the change its ask recorded, which
   * `takeShown` hands to the call's ask.
   */
  expectShown(callId: string, argumentsDigest: string, reason: string): void {
    const byDigest = this.#shown.get(callId) ?? new Map<string, string>()
    byDigest.set(argumentsDigest, reason)
    this.#shown.set(callId, byDigest)
  }

  /** The change the resumed durable ask of call `callId` with `args` recorded, if any; forgets it. */
  async takeShown(callId: string, args: JsonValue | undefined): Promise<string | undefined> {
    const byDigest = this.#shown.get(callId)
    if (byDigest === undefined || args === undefined) return undefined
    const digest = await argumentsDigest(args)
    const shown = byDigest.get(digest)
    byDigest.delete(digest)
    if (byDigest.size === 0) this.#shown.delete(callId)
    return shown
  }

  /** Records that the change of the call with `token` was shown as made from `before`. */
  record(token: symbol, before: string | null): void {
    this.#bases.set(token, contentDigest(before))
  }

  /** Records that no change could be shown for the call with `token`: its body throws `error`. */
  refuse(token: symbol, error: ToolError): void {
    this.#bases.set(token, error)
  }

  /** Forgets a call that ended without its body checking it (rejected, denied). */
  forget(token: symbol): void {
    this.#bases.delete(token)
  }

  /**
   * Before the body of the call with `token` writes `path`, whose text is `now`: throws the
   * error recorded with `refuse`, or `CONFLICT` when a base was recorded and `now` is not that
   * text, since the file changed after its change was shown and writing would overwrite what
   * nobody saw. Forgets the call either way; without a record (a call no ask prepared, as in a
   * library user's runtime) it does nothing.
   */
  check(token: symbol, path: string, now: string | null): void {
    const base = this.#bases.get(token)
    this.#bases.delete(token)
    if (base instanceof ToolError) throw base
    if (base === undefined || base === contentDigest(now)) return
    throw changedSinceShown(path)
  }
}

/** The `CONFLICT` of a write or edit whose file changed after its change was shown (K2.16). */
export function changedSinceShown(path: string): ToolError {
  return new ToolError(
    'CONFLICT',
    `"${path}" changed after the change was shown for approval, so nothing was written; ` +
      'read the file again and make the change against what it holds now',
  )
}
