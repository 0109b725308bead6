/** Whether this Node.js can run AI SDK 7 (Node.js 22 or later), and why the suites skip if not. */
export const MODERN = Number.parseInt(process.versions.node, 10) >= 22

export const SKIP_REASON = `skipped on Node.js ${process.versions.node}: AI SDK 7 needs Node.js 22 or later`
