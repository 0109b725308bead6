import { realpathSync } from 'node:fs'
import { homedir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Guard, JsonValue } from '@tooltx/core'
import { isProtectedPath } from './protected-paths.js'

/** No system opens a longer path (Linux `PATH_MAX`), however a tool normalizes it first. */
const MAX_PATH = 4096
/** A control character (a line break above all): prose, code or data, never a path. */
const CONTROL = /\p{Cc}/u
/** `scheme://…`: a URL, which names a path only for the `file:` scheme. */
const URL_LIKE = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//

/** How long a leaf may be in a denial's reason before it is cut. */
const SHOWN = 120

/**
 * The absolute path a string could name, as written (not normalized, so a `..` after a symlink
 * still climbs out of where the link leads), or `undefined` when it cannot name one (K1.5): the
 * empty string, a string holding a control character (a line break), a URL of any scheme but
 * `file:`, and a string whose path is over 4096 characters even once normalized (`./` repeated
 * is not too long: a tool may normalize it away). A `file:` URL names its path, `~` and `~/…`
 * the user's home, an absolute path itself, and anything else the path relative to `root`.
 * Total.
 */
export function pathNamedBy(leaf: string, root: string): string | undefined {
  if (leaf === '' || CONTROL.test(leaf)) return undefined
  const written = writtenPath(leaf, root)
  return written === undefined || path.resolve(written).length > MAX_PATH ? undefined : written
}

/** `pathNamedBy` before the length check. */
function writtenPath(leaf: string, root: string): string | undefined {
  if (/^file:/i.test(leaf)) {
    try {
      return fileURLToPath(leaf)
    } catch {
      return undefined
    }
  }
  if (URL_LIKE.test(leaf)) return undefined
  if (leaf === '~' || /^~[\\/]/.test(leaf)) return homedir() + leaf.slice(1)
  return path.isAbsolute(leaf) ? leaf : root + path.sep + leaf
}

/**
 * The readings of a string a tool may take for a path: as written, and without surrounding
 * whitespace and quotes (as some tools, and a shell, take `" .env"` or `'"/etc/passwd"'`).
 */
function readings(leaf: string): string[] {
  const bare = leaf.trim().replace(/^["']|["']$/g, '')
  return bare === leaf ? [leaf] : [leaf, bare]
}

/**
 * Where `written` really leads, as the operating system resolves it (symlinks followed, and a
 * `..` after a link climbing from the link's target): the real path of its nearest existing
 * ancestor with the rest appended, so a path to be created through a linked folder is seen
 * where it would land. `written`, normalized, when nothing of it resolves.
 */
function realTarget(written: string): string {
  const rest: string[] = []
  for (let at = written; ; at = path.dirname(at)) {
    try {
      return path.join(realpathSync.native(at), ...rest.reverse())
    } catch {
      if (path.dirname(at) === at) return path.resolve(written)
      rest.push(path.basename(at))
    }
  }
}

/**
 * The string leaves of a call's arguments: every string and object key at any depth, but not
 * what sits under the top-level keys in `skip`.
 */
function* stringLeaves(args: JsonValue, skip: ReadonlySet<string>): Generator<string> {
  // A work stack, not recursion: the depth comes from the model.
  const stack: JsonValue[] = [args]
  let top = true
  while (stack.length > 0) {
    const value = stack.pop()!
    if (typeof value === 'string') yield value
    else if (Array.isArray(value)) for (const item of value) stack.push(item)
    else if (value !== null && typeof value === 'object') {
      for (const [key, inner] of Object.entries(value)) {
        yield key
        if (!(top && skip.has(key))) stack.push(inner)
      }
    }
    top = false
  }
}

/** The arguments of one tool that are free text (a pattern, a note's body), never a path. */
export type FreeTextArguments = ReadonlyMap<string, ReadonlySet<string>>

/**
 * The guard of the CLI's two boundaries, for every call in its scope whatever the tool and its
 * argument names (K1.5–K1.7): each string leaf of the arguments that could name a path
 * (`pathNamedBy`, relative paths against `root`) is denied when that path — as written, or where
 * its symlinks lead — is protected (`isProtectedPath`, of the path inside `root`, else of the
 * whole path), or lies outside `root`. `freeText` names, per tool, the top-level arguments its
 * contract makes free text, which are not read. `root` must be the workspace's real path.
 */
export function pathBoundaryGuard(root: string, freeText: FreeTextArguments = new Map()): Guard {
  const inside = (absolute: string) => absolute === root || absolute.startsWith(root + path.sep)
  /** Why the path `absolute` is off limits, or `undefined`. */
  const offLimits = (absolute: string) => {
    if (!inside(absolute)) return isProtectedPath(absolute) ? 'holds secrets' : 'is outside the workspace'
    return isProtectedPath(path.relative(root, absolute)) ? 'holds secrets' : undefined
  }
  /**
   * Why `reading`, which names `written`, is off limits: its own segments (whatever folder a
   * tool reads it from), where it lands lexically, or where it really leads.
   */
  const refusal = (reading: string, written: string | undefined) => {
    if (written === undefined) return undefined
    if (isProtectedPath(reading)) return 'holds secrets'
    return offLimits(path.resolve(written)) ?? offLimits(realTarget(written))
  }
  const none = new Set<string>()
  return (exec) => {
    if (exec.arguments === undefined) return undefined
    // A leaf met again is judged once: each reading may cost a few file system lookups.
    const seen = new Set<string>()
    for (const leaf of stringLeaves(exec.arguments, freeText.get(exec.name) ?? none)) {
      if (seen.has(leaf)) continue
      seen.add(leaf)
      const why = readings(leaf)
        .map((reading) => refusal(reading, pathNamedBy(reading, root)))
        .find((found) => found !== undefined)
      if (why !== undefined) {
        const shown = leaf.length > SHOWN ? `${leaf.slice(0, SHOWN)}…` : leaf
        return why === 'holds secrets'
          ? `"${shown}" holds secrets`
          : `"${shown}" is outside the workspace; name paths inside it`
      }
    }
    return undefined
  }
}
