/**
 * @tooltx/ai-sdk's Node.js gate, proved where it matters: on a Node.js older than 22, where the
 * package's own suite (npm run test:ai-sdk) cannot install AI SDK 7 and skips. The gate module has
 * no imports, so it needs nothing from outside the root install.
 */
import { describe, expect, it } from 'vitest'

const major = Number.parseInt(process.versions.node, 10)

describe.runIf(major < 22)('Z2.8: on Node.js older than 22', () => {
  it('Z2.8: importing @tooltx/ai-sdk fails with a message naming both versions', async () => {
    await expect(import('../packages/ai-sdk/src/node-version.js')).rejects.toThrow(
      `@tooltx/ai-sdk needs Node.js 22 or later, because AI SDK 7 (the "ai" package) does; this is Node.js ${process.versions.node}.`,
    )
  })
})
