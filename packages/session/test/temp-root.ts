import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll } from 'vitest'

/** A fresh directory under the OS temp dir for one test file, removed after its tests. */
export function tempRoot(prefix: string): string {
  const root = mkdtempSync(join(tmpdir(), prefix))
  afterAll(() => rmSync(root, { recursive: true, force: true }))
  return root
}
