import { fileURLToPath } from 'node:url'
import { configDefaults, defineConfig } from 'vitest/config'

const pkg = (name: string, entry = 'index') =>
  fileURLToPath(new URL(`./packages/${name}/src/${entry}.ts`, import.meta.url))

export default defineConfig({
  resolve: {
    // Tests run against the sources of sibling packages, so a change in core is seen
    // by the session or agent tests without a rebuild.
    // An entry point below a package (`@tooltx/core/internal`) comes before the package: the first
    // alias that matches wins.
    alias: {
      '@tooltx/core/internal': pkg('core', 'internal'),
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
