/**
 * The code blocks of the user docs as programs: extraction by fence info string, and one strict
 * type-check and emit of them all (skipLibCheck off, module resolution as a user's project has it).
 * Shared by the root docs test and @tooltx/ai-sdk's own, which runs the blocks that need AI SDK 7.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import ts from 'typescript'

export interface Snippet {
  file: string
  heading: string
  code: string
}

/** The blocks of a Markdown file whose fence info string is exactly `info`, each with its heading. */
export function snippets(repo: string, file: string, info: string): Snippet[] {
  const found: Snippet[] = []
  let heading = '(top)'
  const text = readFileSync(path.join(repo, file), 'utf8')
  for (const [index, chunk] of text.split(/^```/m).entries()) {
    if (index % 2 === 0) {
      const headings = chunk.match(/^#+ .*$/gm)
      if (headings !== null) heading = headings.at(-1)!.replace(/^#+ /, '')
    } else if (chunk.startsWith(`${info}\n`))
      found.push({ file, heading, code: chunk.slice(info.length + 1) })
  }
  return found
}

/**
 * Writes each snippet to `dir/snippet-<i>.mts`, type-checks them together and emits
 * `snippet-<i>.mjs` beside them. Returns the diagnostics by file name (`global` for the rest).
 */
export function compileSnippets(dir: string, all: readonly Snippet[]): Map<string, string[]> {
  const files = all.map((snippet, i) => {
    const name = path.join(dir, `snippet-${i}.mts`)
    writeFileSync(name, snippet.code)
    return name
  })
  const program = ts.createProgram(files, {
    strict: true,
    skipLibCheck: false,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    types: ['node'],
    // The snippets' own folder: inside a package folder, the package's own name then resolves
    // through its `exports` to the built files.
    rootDir: dir,
    outDir: dir,
  })
  const diagnostics = new Map<string, string[]>()
  for (const d of ts.getPreEmitDiagnostics(program)) {
    const key = d.file?.fileName ?? 'global'
    diagnostics.set(key, [
      ...(diagnostics.get(key) ?? []),
      ts.flattenDiagnosticMessageText(d.messageText, '\n'),
    ])
  }
  program.emit()
  return diagnostics
}
