import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vite'

/** Builds the viewer's page into the CLI's `dist/web`, where `tooltx view` serves it from (G5.1). */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    emptyOutDir: true,
    // No inline data: URLs for scripts, so the page's CSP can stay `script-src 'self'`.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    target: 'es2022',
  },
})
