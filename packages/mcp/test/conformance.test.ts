/**
 * The official MCP conformance framework against tooltx (Y1.28–Y1.30): every server scenario
 * against a tooltx server and, as the reference row, against a plain official-SDK server with
 * the same tools; every client scenario against a tooltx client (`mcpTools`). Each outcome must
 * be the one the table below (and docs/mcp.md) says, as the framework's own baseline rule has it:
 * a scenario that starts failing is a regression, one that starts passing means the table is stale.
 * The framework needs Node >= 22; CI runs `npm test` on Node 20 and again on Node 24.
 */
import { readFile } from 'node:fs/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  FRAMEWORK_STAMP,
  installFramework,
  lockDigest,
  type Outcome,
  runConformance,
} from './conformance-suite.js'
import { cleanupAll, fixture, startUrlFixture } from './mcp.fixtures.js'

const NODE_MAJOR = Number(process.versions.node.split('.')[0])
const TOO_OLD = NODE_MAJOR < 22
const SKIPPED = `skipped: the conformance framework needs Node >= 22 (this is Node ${process.versions.node}); CI runs it on Node 24`
if (TOO_OLD) console.warn(`conformance.test.ts ${SKIPPED}`)

/** Server scenarios: [tooltx, plain SDK server]. */
const SERVER: Record<string, [Outcome, Outcome]> = {
  'server-initialize': ['pass', 'pass'],
  'logging-set-level': ['pass', 'pass'],
  ping: ['pass', 'pass'],
  'completion-complete': ['fail', 'fail'],
  'tools-list': ['pass', 'pass'],
  'tools-call-simple-text': ['pass', 'pass'],
  'tools-call-image': ['pass', 'pass'],
  'tools-call-audio': ['pass', 'pass'],
  'tools-call-embedded-resource': ['pass', 'pass'],
  'tools-call-mixed-content': ['pass', 'pass'],
  'tools-call-with-logging': ['pass', 'pass'],
  'tools-call-error': ['pass', 'pass'],
  'tools-call-with-progress': ['pass', 'pass'],
  'tools-call-sampling': ['pass', 'pass'],
  'tools-call-elicitation': ['pass', 'pass'],
  'json-schema-2020-12': ['pass', 'fail'],
  'elicitation-sep1034-defaults': ['pass', 'pass'],
  'server-sse-polling': ['pass', 'pass'],
  'server-sse-multiple-streams': ['pass', 'pass'],
  'elicitation-sep1330-enums': ['pass', 'pass'],
  'resources-list': ['fail', 'fail'],
  'resources-read-text': ['fail', 'fail'],
  'resources-read-binary': ['fail', 'fail'],
  'resources-templates-read': ['fail', 'fail'],
  'resources-subscribe': ['fail', 'fail'],
  'resources-unsubscribe': ['fail', 'fail'],
  'prompts-list': ['fail', 'fail'],
  'prompts-get-simple': ['fail', 'fail'],
  'prompts-get-with-args': ['fail', 'fail'],
  'prompts-get-embedded-resource': ['fail', 'fail'],
  'prompts-get-with-image': ['fail', 'fail'],
  'dns-rebinding-protection': ['pass', 'pass'],
}

/** The OAuth scenarios (Y5) the tooltx client passes; the client runs them with fixtures/conformance/oauth-client.mjs. */
const AUTH = [
  'metadata-default',
  'metadata-var1',
  'metadata-var2',
  'metadata-var3',
  'basic-cimd',
  'scope-from-www-authenticate',
  'scope-from-scopes-supported',
  'scope-omitted-when-undefined',
  'scope-step-up',
  'scope-retry-limit',
  'token-endpoint-auth-basic',
  'token-endpoint-auth-post',
  'token-endpoint-auth-none',
  'pre-registration',
  '2025-03-26-oauth-endpoint-fallback',
  'offline-access-scope',
  'offline-access-not-supported',
  'client-credentials-jwt',
  'client-credentials-basic',
  'cross-app-access-complete-flow',
]

/** Client scenarios of the tooltx client. */
const CLIENT: Record<string, Outcome> = {
  initialize: 'pass',
  tools_call: 'pass',
  'elicitation-sep1034-client-defaults': 'pass',
  'sse-retry': 'pass',
  'auth/resource-mismatch': 'pass',
  ...Object.fromEntries(AUTH.map((name) => [`auth/${name}`, 'pass' as const])),
  // Its authorization server publishes an `issuer` that is not its metadata URL's, which the
  // client refuses (RFC 8414 §3.3, Y5.2).
  'auth/2025-03-26-oauth-metadata-backcompat': 'fail',
}

/** The differences between `expected` and `actual`, one line per scenario, for a readable failure. */
function differences(expected: Record<string, Outcome>, actual: Map<string, Outcome>): string[] {
  const names = new Set([...Object.keys(expected), ...actual.keys()])
  return [...names]
    .filter((name) => expected[name] !== actual.get(name))
    .map(
      (name) =>
        `${name}: expected ${expected[name] ?? '(not in the table)'}, got ${actual.get(name) ?? '(not run)'}`,
    )
}

const column = (index: 0 | 1) =>
  Object.fromEntries(Object.entries(SERVER).map(([name, row]) => [name, row[index]]))

it('Y1.30 the framework is never in the workspace install, which CI also runs on Node 20', async () => {
  const lock = JSON.parse(await readFile(new URL('../../../package-lock.json', import.meta.url), 'utf8')) as {
    packages: Record<string, unknown>
  }
  expect(
    Object.keys(lock.packages).filter((path) => path.endsWith('@modelcontextprotocol/conformance')),
  ).toEqual([])
  const pinned = JSON.parse(await readFile(fixture('conformance/package.json'), 'utf8')) as {
    devDependencies: Record<string, string>
  }
  expect(pinned.devDependencies['@modelcontextprotocol/conformance']).toMatch(/^\d+\.\d+\.\d+$/)
})

describe.skipIf(TOO_OLD)(
  TOO_OLD ? `the official MCP conformance suite (${SKIPPED})` : 'the official MCP conformance suite',
  () => {
    let cli: string
    beforeAll(async () => {
      cli = await installFramework()
    }, 180_000)

    it('Y1.30 the framework is installed from its own lock, and not again while the lock is the same', async () => {
      expect(await installFramework()).toBe(cli)
      expect(await readFile(FRAMEWORK_STAMP, 'utf8')).toBe(await lockDigest())
    })
    afterAll(cleanupAll)

    it('Y1.28 a tooltx server passes every server scenario the table says, and at least as many as a plain SDK server', async () => {
      const tooltx = await runConformance(
        cli,
        'server',
        (await startUrlFixture('conformance/tooltx-server.mjs')).url.href,
      )
      const sdk = await runConformance(
        cli,
        'server',
        (await startUrlFixture('conformance/sdk-server.mjs')).url.href,
      )
      expect(differences(column(0), tooltx)).toEqual([])
      expect(differences(column(1), sdk)).toEqual([])
      const passes = (outcomes: Map<string, Outcome>) =>
        [...outcomes.values()].filter((o) => o === 'pass').length
      expect(passes(tooltx)).toBeGreaterThanOrEqual(passes(sdk))
    }, 120_000)

    it('Y1.29 a tooltx client (mcpTools) passes every client scenario the table says', async () => {
      const command = `"${process.execPath}" "${fixture('conformance/tooltx-client.mjs')}"`
      expect(differences(CLIENT, await runConformance(cli, 'client', command))).toEqual([])
    }, 120_000)
  },
)
