import { realpathSync } from 'node:fs'
import { mkdir, readdir, realpath, stat } from 'node:fs/promises'
import path from 'node:path'
import { ToolError } from '@tooltx/core'
import { isProtectedPath } from './protected-paths.js'

/** A file found under a workspace directory. */
export interface WorkspaceFile {
  /** Its workspace-relative path as found (a symlink keeps its own name), with `/` separators. */
  readonly path: string
  /** The absolute real path to read. */
  readonly real: string
}

/**
 * A directory the workspace tools are confined to. Every path goes through it: a path is
 * refused when it, or the real path its symlinks lead to, lies outside the root or is
 * protected (`isProtectedPath`), so a link can neither escape the root nor reach a secret.
 */
export interface Workspace {
  /** The absolute, symlink-free root. */
  readonly root: string
  /**
   * The real path of an existing workspace-relative path. Throws `OUTSIDE_WORKSPACE`,
   * `PROTECTED` or `NOT_FOUND`.
   */
  resolve(relative: string): Promise<string>
  /**
   * The real path to write a file at, creating missing parent folders inside the root. The same
   * refusals as `resolve`; an existing file there (or the symlink it is) must pass them too.
   */
  resolveForWrite(relative: string): Promise<string>
  /**
   * The files under a workspace directory (or the one file a path names), recursively. Skips
   * protected entries and symlinks that lead outside the root, to a protected path or to a
   * folder (folders are entered only by their real name, so a link cannot loop).
   */
  files(relative: string, signal: AbortSignal): AsyncGenerator<WorkspaceFile>
}

/** Opens a workspace rooted at `root` (which must exist). */
export function openWorkspace(root: string): Workspace {
  const real = realpathSync(root)
  const inside = (absolute: string) => absolute === real || absolute.startsWith(real + path.sep)
  const relative = (absolute: string) => path.relative(real, absolute).split(path.sep).join('/') || '.'
  /** Throws unless `absolute` (lexical or real) is inside the root and not protected. */
  const admit = (absolute: string, asked: string) => {
    if (!inside(absolute)) {
      throw new ToolError(
        'OUTSIDE_WORKSPACE',
        `path "${asked}" is outside the workspace; use a relative path`,
      )
    }
    if (isProtectedPath(relative(absolute))) {
      throw new ToolError('PROTECTED', `path "${asked}" is protected (it holds secrets); leave it alone`)
    }
    return absolute
  }
  /** The checked real path of an existing absolute path, or `undefined` if nothing is there. */
  const realOf = async (absolute: string, asked: string) => {
    const found = await realpath(absolute).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return undefined
      throw error
    })
    return found === undefined ? undefined : admit(found, asked)
  }
  const workspace: Workspace = {
    root: real,
    async resolve(asked) {
      const found = await realOf(admit(path.resolve(real, asked), asked), asked)
      if (found === undefined) throw new ToolError('NOT_FOUND', `"${asked}" does not exist in the workspace`)
      return found
    },
    async resolveForWrite(asked) {
      const target = admit(path.resolve(real, asked), asked)
      let dir = real
      for (const segment of path.relative(real, path.dirname(target)).split(path.sep).filter(Boolean)) {
        const next = path.join(dir, segment)
        dir = (await realOf(next, asked)) ?? next
        await mkdir(dir, { recursive: true })
      }
      const file = path.join(dir, path.basename(target))
      return (await realOf(file, asked)) ?? file
    },
    async *files(asked, signal) {
      const start = await workspace.resolve(asked)
      if (!(await stat(start)).isDirectory()) {
        yield { path: relative(path.resolve(real, asked)), real: start }
        return
      }
      const pending = [start]
      while (pending.length > 0) {
        signal.throwIfAborted()
        const dir = pending.pop()!
        const entries = await readdir(dir, { withFileTypes: true })
        entries.sort((a, b) => (a.name < b.name ? -1 : 1))
        for (const entry of entries) {
          const full = path.join(dir, entry.name)
          if (isProtectedPath(relative(full))) continue
          if (entry.isDirectory()) pending.push(full)
          else if (entry.isFile()) yield { path: relative(full), real: full }
          else if (entry.isSymbolicLink()) {
            const target = await realOf(full, entry.name).catch(() => undefined)
            if (target !== undefined && (await stat(target)).isFile())
              yield { path: relative(full), real: target }
          }
        }
      }
    },
  }
  return workspace
}
