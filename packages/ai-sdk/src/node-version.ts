/**
 * AI SDK 7 needs Node.js 22 or later (its `engines`). This module is imported first by the
 * package entry, so on an older Node.js importing `@tooltx/ai-sdk` fails here with a message that
 * names both versions, before `ai` itself is loaded (Z2.8).
 */
const MINIMUM_MAJOR = 22
const major = Number.parseInt(process.versions.node, 10)

if (major < MINIMUM_MAJOR) {
  throw new Error(
    `@tooltx/ai-sdk needs Node.js ${MINIMUM_MAJOR} or later, because AI SDK 7 (the "ai" package) does; ` +
      `this is Node.js ${process.versions.node}. Upgrade Node.js, or use @tooltx/agent's own adapters ` +
      '(openaiCompatible, anthropic), which run on Node.js 20.',
  )
}
