// @ts-check
import { transform } from 'sucrase'

const PREFIX = '(async () => {'

/** @typedef {{ ok: true, code: string } | { ok: false, message: string }} TranspileResult */

/**
 * Turns a TypeScript program into the JavaScript expression `(async () => { <program> })`
 * (X8.8). Types are stripped and nothing else is rewritten; the wrapper shares the first line
 * with the program, so every line number in an error points at the model's own line.
 * Runs inside the sandbox worker, under the run's wall clock (X8.13). Never throws.
 * @param {string} program
 * @returns {TranspileResult}
 */
export function transpileProgram(program) {
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
      (_, /** @type {string} */ column) => `(1:${Math.max(0, Number(column) - PREFIX.length)})`,
    )
    return { ok: false, message: `TypeScript transpile failed: ${message}` }
  }
}
