import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

const pkg = (name: string, entry = 'index') =>
  fileURLToPath(new URL(`../${name}/src/${entry}.ts`, import.meta.url))

// @tooltx/ai-sdk's own suite (npm run test:ai-sdk): `ai` and the providers come from this folder's
// node_modules, vitest and the sibling packages from the workspace root, whose sources the tests run.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  resolve: {
    alias: {
      // Before '@tooltx/core': the first alias that matches wins.
      '@tooltx/core/internal': pkg('core', 'internal'),
      '@tooltx/core': pkg('core'),
      '@tooltx/session': pkg('session'),
      '@tooltx/agent': pkg('agent'),
      '@tooltx/ai-sdk': pkg('ai-sdk'),
    },
  },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
})
