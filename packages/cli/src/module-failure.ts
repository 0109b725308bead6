/**
 * Where a user module (`--tools`, `--policy`) failed, as `path:line:column` (K6.3): Node gives the
 * place in a stack frame (a throw), in the source-line header of its stack (a missing named
 * export), in the "imported from" of a module it cannot find (the import is then looked up in the
 * importer's text), and not at all for a SyntaxError of a dynamically imported module, whose
 * place `node --check` reports without running anything.
 */
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

/** The folder holding the CLI's package and its tooltx siblings: frames there are not the user's. */
const OURS = path.dirname(fileURLToPath(new URL('..', import.meta.url)))

/** A stack frame's place: `at fn (file:///a.mjs:3:9)` or `at file:///a.mjs:3:9`. */
const FRAME = /^\s*at (?:.*?\()?((?:file:\/\/)?\/[^\s()]*?):(\d+):(\d+)\)?$/gm
/**
 * Node's source-line header: `file:///a.mjs:3`, the line, then carets under the culprit, or no
 * carets when the input ended early (the place is then the end of that line).
 */
const HEADER = /^((?:file:\/\/)?\/\S*?):(\d+)\n(.*)\n([ \t]*)(\^?)/
/** Node's message for an import it cannot resolve. */
const NOT_FOUND = /Cannot find (?:module|package) '([^']+)' imported from (.+)$/m
/** A module specifier in an `import … from '…'`, `export … from '…'`, `import '…'` or `import('…')`. */
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*)(['"])([^'"\n]+)\1/g

/** `path:line:column` for a `file:` URL or path. */
function place(file: string, line: number | string, column: number | string): string {
  return `${file.startsWith('file:') ? fileURLToPath(file) : file}:${line}:${column}`
}

/** The place of the first frame in `module`, else outside the tooltx packages, else any. */
function framePlace(stack: string, module: string): string | undefined {
  const frames = [...stack.matchAll(FRAME)].map((m) => ({
    file: m[1]!.startsWith('file:') ? fileURLToPath(m[1]!) : m[1]!,
    at: place(m[1]!, m[2]!, m[3]!),
  }))
  const user = frames.filter((f) => !f.file.startsWith(OURS + path.sep) && !f.file.includes('/node_modules/'))
  return (frames.find((f) => f.file === module) ?? user[0])?.at
}

/** The place under Node's source-line header at the top of `text`. */
function headerPlace(text: string): string | undefined {
  const m = HEADER.exec(text)
  if (m === null) return undefined
  return place(m[1]!, m[2]!, (m[5] === '' ? m[3]! : m[4]!).length + 1)
}

/** The place of the import in `importer` of the module or package `missing` that Node could not find. */
function importPlace(missing: string, importer: string): string | undefined {
  let text: string
  try {
    text = readFileSync(importer, 'utf8')
  } catch {
    return undefined
  }
  const target = missing.startsWith('file:') ? fileURLToPath(missing) : missing
  for (const m of text.matchAll(SPECIFIER)) {
    const spec = m[2]!
    const relative = spec.startsWith('.') || spec.startsWith('/') || spec.startsWith('file:')
    const named = relative
      ? path.resolve(path.dirname(importer), spec.startsWith('file:') ? fileURLToPath(spec) : spec) === target
      : spec === target || spec.startsWith(`${target}/`)
    if (!named) continue
    const index = m.index + m[0].indexOf(m[1]!)
    const before = text.slice(0, index).split('\n')
    return place(importer, before.length, before.at(-1)!.length + 1)
  }
  return undefined
}

/** The place of the first syntax error `node --check` finds in `module` (nothing is run). */
function checkedPlace(module: string): string | undefined {
  const check = spawnSync(process.execPath, ['--check', module], { encoding: 'utf8', timeout: 10_000 })
  return check.status === 0 ? undefined : headerPlace(check.stderr ?? '')
}

/**
 * `path:line:column` of what made loading or calling the module at `module` (an absolute path)
 * fail with `error`, or `undefined` when nothing says where.
 */
export function failurePlace(error: unknown, module: string): string | undefined {
  if (!(error instanceof Error)) return undefined
  const stack = error.stack ?? ''
  const header = headerPlace(stack)
  if (header !== undefined) return header
  const notFound = NOT_FOUND.exec(error.message)
  if (notFound !== null) return importPlace(notFound[1]!, notFound[2]!.trim())
  const frame = framePlace(stack, module)
  if (frame !== undefined) return frame
  return error instanceof SyntaxError ? checkedPlace(module) : undefined
}
