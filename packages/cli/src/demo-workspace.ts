import { cpSync, lstatSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { UsageError } from './display/output.js'

/** The file that marks a folder as one `tooltx demo` created (and so may delete). */
export const DEMO_MARKER = '.tooltx-demo-workspace'

const MARKER_TEXT = 'Created by `tooltx demo`, which deletes and recreates this folder on its next run.\n'

/**
 * Makes `root` a fresh copy of `sample`. Deletes what is at `root` first only when it is a
 * folder (not a link) holding `DEMO_MARKER`, i.e. one an earlier demo created; anything else
 * there is left untouched and a `UsageError` says what to do. The new copy gets the marker.
 */
export function freshDemoWorkspace(root: string, sample: string): void {
  const existing = lstatSync(root, { throwIfNoEntry: false })
  if (existing !== undefined) {
    const marked =
      existing.isDirectory() && lstatSync(path.join(root, DEMO_MARKER), { throwIfNoEntry: false })?.isFile()
    if (!marked) {
      throw new UsageError(
        `${root} already exists and was not created by tooltx demo, so the demo will not delete it; ` +
          'move it away, or pass --db with a path in another folder',
      )
    }
    rmSync(root, { recursive: true, force: true })
  }
  mkdirSync(root, { recursive: true })
  cpSync(sample, root, { recursive: true })
  writeFileSync(path.join(root, DEMO_MARKER), MARKER_TEXT)
}
