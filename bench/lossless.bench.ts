/**
 * How much does the argument boundary cost? `snapshotJson(v, { freeze: true })` (check + copy +
 * freeze in one walk) and `isLosslessJson` on a realistic ~1 KB tool-argument object, side by side
 * with the two copies people reach for: `structuredClone` and a `JSON.stringify` → `JSON.parse`
 * round trip (neither of which checks losslessness or freezes).
 */
import { isLosslessJson, snapshotJson } from '@tooltx/core'
import { type BenchSection, formatNs, measure, ratio, target } from './harness.js'

/** A model-written `edit_file`-style call: nested object, a few arrays, mostly strings. */
function toolArguments(): Record<string, unknown> {
  return {
    path: '/home/dev/projects/tooltx/packages/core/src/lossless-json.ts',
    edits: [
      {
        oldText: 'const stack: Frame[] = []\n  const onPath = new Set<object>()',
        newText: 'const stack: Frame[] = []\n  const ancestors = new Set<object>()',
        replaceAll: false,
      },
      {
        oldText: 'if (onPath.has(child)) return fail()',
        newText: 'if (ancestors.has(child)) return fail()',
        replaceAll: true,
      },
      { oldText: 'onPath.add(value)', newText: 'ancestors.add(value)', replaceAll: false },
    ],
    options: {
      dryRun: false,
      createIfMissing: false,
      encoding: 'utf-8',
      lineEndings: 'lf',
      backup: { enabled: true, suffix: '.orig', keep: 3 },
    },
    context: {
      reason: 'Rename the ancestor set so the cycle check reads like the SPEC wording (J1.3).',
      tags: ['refactor', 'naming', 'core'],
      relatedFiles: ['packages/core/test/lossless-json.test.ts', 'bench/lossless.bench.ts'],
      lineRange: [120, 184],
    },
    expectedMatches: 3,
    confidence: 0.92,
    verify: { command: 'npx vitest run packages/core/test/lossless-json.test.ts', timeoutMs: 60_000 },
  }
}

export default async (): Promise<BenchSection[]> => {
  const args = toolArguments()
  const bytes = JSON.stringify(args).length
  if (!isLosslessJson(args)) throw new Error('benchmark input must be lossless JSON')

  const snapshot = await measure('snapshotJson(v, { freeze: true })', () =>
    snapshotJson(args, { freeze: true }),
  )
  const snapshotOnly = await measure('snapshotJson(v) (no freeze)', () => snapshotJson(args))
  const check = await measure('isLosslessJson(v)', () => isLosslessJson(args))
  const clone = await measure('structuredClone(v)', () => structuredClone(args))
  const roundTrip = await measure('JSON.parse(JSON.stringify(v))', () => JSON.parse(JSON.stringify(args)))

  return [
    {
      title: 'Lossless JSON: snapshot + freeze of tool arguments',
      method:
        `One realistic \`edit_file\`-style argument object (${bytes} bytes of JSON: a nested options object, ` +
        'an array of edit objects, string arrays, numbers). `snapshotJson(v, { freeze: true })` checks J1 ' +
        'losslessness, copies and deep-freezes in one iterative walk; `isLosslessJson` is the same walk ' +
        'without freezing, returning a boolean. `structuredClone` and the JSON round trip copy only: they ' +
        'neither reject lossy input (J1.2) nor freeze.',
      rows: [snapshot, snapshotOnly, check, clone, roundTrip],
      ratios: [
        `snapshot+freeze / structuredClone = ${ratio(snapshot, clone)}`,
        `snapshot+freeze / JSON round trip = ${ratio(snapshot, roundTrip)}`,
        `snapshot+freeze / snapshot = ${ratio(snapshot, snapshotOnly)}`,
      ],
      targets: [
        target(
          `snapshot+freeze of a ${bytes}-byte argument object < 5 µs`,
          formatNs(snapshot.medianNs),
          snapshot.medianNs < 5_000,
        ),
      ],
    },
  ]
}
