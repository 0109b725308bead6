import { fileURLToPath } from 'node:url'
import { configDefaults, defineConfig } from 'vitest/config'

const pkg = (name: string) => fileURLToPath(new URL(`./packages/${name}/src/index.ts`, import.meta.url))

export default defineConfig({
  resolve: {
    // Tests run against the sources of sibling packages, so a change in core is seen
    // by the session or agent tests without a rebuild.
    alias: {
      '@tooltx/core': pkg('core'),
      '@tooltx/session': pkg('session'),
      '@tooltx/sandbox': pkg('sandbox'),
      '@tooltx/agent': pkg('agent'),
      '@tooltx/mcp': pkg('mcp'),
      '@tooltx/worker': pkg('worker'),
      '@tooltx/otel': pkg('otel'),
    },
  },
  test: {
    include: ['packages/*/test/**/*.test.ts', 'test/**/*.test.ts'],
    // @tooltx/ai-sdk installs and tests on its own (npm run test:ai-sdk), like the bench (W1.5).
    exclude: [...configDefaults.exclude, 'packages/ai-sdk/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
})
