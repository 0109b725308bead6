import { transform } from 'sucrase'

const PREFIX = '(async () => {'

/** The outcome of transpiling a program: JavaScript for the sandbox, or the transpiler's complaint. */
export type TranspileResult = { ok: true; code: string } | { ok: false; message: string }

/**
 * Turns a TypeScript program into the JavaScript expression `(async () => { <program> })`
 * (X8.8). Types are stripped and nothing else is rewritten; the wrapper shares the first line
 * with the program, so every line number in an error points at the model's own line.
 * Never throws.
 */
export function transpileProgram(program: string): TranspileResult {
  try {
    const { code } = transform(`${PREFIX}${program}\n})`, {
      transforms: ['typescript'],
      disableESTransforms: true,
      filePath: 'program.ts',
    })
    return { ok: true, code }
  } catch (error) {
    // Positions on the first line include the wrapper; report the model's own column.
    const message = (error instanceof Error ? error.message : String(error)).replace(
      /\(1:(\d+)\)/,
      (_, column: string) => `(1:${Math.max(0, Number(column) - PREFIX.length)})`,
    )
    return { ok: false, message: `TypeScript transpile failed: ${message}` }
  }
}
