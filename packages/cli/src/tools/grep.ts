import { readFile } from 'node:fs/promises'
import { ToolError } from '@tooltx/core'
import { RE2JS } from 're2js'
import { counted } from '../display/counted.js'
import { closedObject, workspaceTool } from './workspace-tool.js'

const MAX_MATCHES = 100

/**
 * `grep`: searches the workspace's text files for a regular expression (read-only,
 * parallel-safe). Patterns run on RE2 (`re2js`), whose matching time is linear in the input,
 * so no pattern can freeze the process (K1.3); protected files and links out of the workspace
 * are never searched (K1.1, K1.2).
 */
export const grepTool = workspaceTool({
  name: 'grep',
  description: 'Search the text files of the workspace for a regular expression, line by line.',
  parameters: {
    pattern: {
      type: 'string',
      required: true,
      description: 'A regular expression (RE2 syntax: no backreferences or lookarounds)',
    },
    path: { type: 'string', description: 'Folder or file to search, relative to the root (default ".")' },
  },
  fields: {
    matches: {
      type: 'array',
      items: closedObject({ path: 'string', line: 'integer', text: 'string' }),
    },
    truncated: 'boolean',
    total: 'integer',
  },
  text: (_args, value) =>
    value.matches.length === 0
      ? 'no matches'
      : value.matches.map((m) => `${m.path}:${m.line}: ${m.text}`).join('\n') +
        (value.truncated ? `\n… ${counted(value.total, 'match', 'matches')} in all` : ''),
  // The card reads this structured copy; a UI never parses the rendered text.
  meta: 'value',
  readOnly: true,
  // A regular expression: `/api/` or `.env` is text to look for, not a file to open.
  freeText: ['pattern'],
  async execute(args, run, workspace) {
    const regex = compilePattern(args.pattern)
    const matches: { path: string; line: number; text: string }[] = []
    let total = 0
    for await (const file of workspace.files(args.path ?? '.', run.signal)) {
      run.signal.throwIfAborted()
      const text = await readFile(file.real, { encoding: 'utf8', signal: run.signal })
      if (text.includes('\u0000')) continue
      text.split('\n').forEach((line, i) => {
        if (!regex.test(line)) return
        total++
        if (matches.length < MAX_MATCHES) matches.push({ path: file.path, line: i + 1, text: line.trim() })
      })
    }
    matches.sort((a, b) => (a.path === b.path ? a.line - b.line : a.path < b.path ? -1 : 1))
    return { matches, truncated: total > matches.length, total }
  },
  presentCall: (args) => ({ card: 'generic', title: `Search for /${args.pattern}/`, kind: 'search' }),
  presentResult: (_args, result) => {
    if (result.isError || !isGrepMeta(result.meta)) return undefined
    const files = new Map<string, { line: number; text: string }[]>()
    for (const match of result.meta.matches) {
      const list = files.get(match.path) ?? []
      list.push({ line: match.line, text: match.text })
      files.set(match.path, list)
    }
    return {
      card: 'search',
      shape: 'matches',
      files: [...files].map(([filePath, matches]) => ({ path: filePath, matches })),
      truncated: result.meta.truncated,
      total: result.meta.total,
    }
  },
})

/** Compiles a model's pattern for RE2; a pattern RE2 cannot run is `BAD_PATTERN` saying why. */
function compilePattern(pattern: string): RE2JS {
  try {
    return RE2JS.compile(RE2JS.translateRegExp(pattern))
  } catch (error) {
    throw new ToolError(
      'BAD_PATTERN',
      `"${pattern}" is not a pattern grep can run (RE2 syntax: no backreferences or lookarounds): ${
        error instanceof Error ? error.message : String(error)
      }`,
    )
  }
}

interface GrepMeta {
  matches: { path: string; line: number; text: string }[]
  truncated: boolean
  total: number
}

function isGrepMeta(meta: unknown): meta is GrepMeta {
  const m = meta as GrepMeta | undefined
  return typeof m === 'object' && m !== null && Array.isArray(m.matches) && typeof m.total === 'number'
}
