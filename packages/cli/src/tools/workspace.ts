import { realpathSync } from 'node:fs'
import path from 'node:path'
import { ToolError } from '@tooltx/core'

/** A directory the workspace tools are confined to. */
export interface Workspace {
  /** The absolute, symlink-free root. */
  readonly root: string
  /** Resolves a workspace-relative path; throws `OUTSIDE_WORKSPACE` when it escapes the root. */
  resolve(relative: string): string
  /** The workspace-relative form of an absolute path, with `/` separators. */
  relative(absolute: string): string
}

/** Opens a workspace rooted at `root` (which must exist). */
export function openWorkspace(root: string): Workspace {
  const real = realpathSync(root)
  return {
    root: real,
    resolve(relative) {
      const absolute = path.resolve(real, relative)
      if (absolute !== real && !absolute.startsWith(real + path.sep)) {
        throw new ToolError(
          'OUTSIDE_WORKSPACE',
          `path "${relative}" is outside the workspace; use a relative path`,
        )
      }
      return absolute
    },
    relative(absolute) {
      return path.relative(real, absolute).split(path.sep).join('/') || '.'
    },
  }
}
