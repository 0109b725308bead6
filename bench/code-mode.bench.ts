/**
 * How many tool-result tokens does Code Mode keep out of the model's context? The same task
 * ("find the TODOs in src/ and count each file's lines") run natively and as one `run_code`
 * program, over the CLI toolset, with scripted models and the real QuickJS sandbox.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { codeModeComparison, type Output } from 'tooltx'
import { type BenchSection, target } from './harness.js'

const SAMPLE = fileURLToPath(new URL('../packages/cli/sample-workspace', import.meta.url))

/** A workspace with `files` TypeScript files of `lines` lines each under src/, a TODO every 40 lines. */
function generatedWorkspace(files: number, lines: number): string {
  const root = mkdtempSync(path.join(os.tmpdir(), 'tooltx-code-mode-bench-'))
  mkdirSync(path.join(root, 'src'))
  for (let f = 0; f < files; f++) {
    const body = Array.from({ length: lines }, (_, i) =>
      i % 40 === 7
        ? `  // TODO: handle case ${f}.${i}`
        : `  const value${i} = compute(${f}, ${i}) // step ${i}`,
    )
    writeFileSync(
      path.join(root, 'src', `module-${f}.ts`),
      `export function run${f}() {\n${body.join('\n')}\n}\n`,
    )
  }
  return root
}

const silent: Output = {
  line() {},
  text() {},
  error() {},
  status() {},
  interactive: false,
  columns: undefined,
  prompt: undefined,
  onClosed: () => () => {},
}

export default async function codeModeBench(): Promise<BenchSection[]> {
  const generated = generatedWorkspace(8, 150)
  try {
    const cases: [string, string][] = [
      ['CLI sample workspace (2 files, 31 lines)', SAMPLE],
      ['generated workspace (8 files × 152 lines)', generated],
    ]
    const rows: string[] = []
    const targets: string[] = []
    for (const [label, root] of cases) {
      const { nativeTokens, codeTokens } = await codeModeComparison(silent, root)
      const saving = (1 - codeTokens / nativeTokens) * 100
      rows.push(`| ${label} | ${nativeTokens} | ${codeTokens} | ${saving.toFixed(1)}% |`)
      targets.push(target(`${label}: ≥ 60% fewer tool-result tokens`, `${saving.toFixed(1)}%`, saving >= 60))
    }
    return [
      {
        title: 'Code Mode: tool-result tokens in the model context',
        method:
          'The same task runs twice through `createAgent` with scripted models over the CLI toolset and a memory ' +
          'session: natively (list_files and grep, then one read_file per file, every result rendered into the ' +
          'context) and in Code Mode (one `run_code` program in the QuickJS sandbox making the same calls and ' +
          'returning one summary line per file). Tokens are the o200k_base (js-tiktoken) tokens of the content of ' +
          'every `tool` message derived from the session. Counts, not timings: they do not vary between runs.',
        rows: [],
        targets,
        extra: [
          '| workspace | native tokens | Code Mode tokens | saving |',
          '|---|---:|---:|---:|',
          ...rows,
        ].join('\n'),
      },
    ]
  } finally {
    rmSync(generated, { recursive: true, force: true })
  }
}
