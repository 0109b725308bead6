import { readdir, readFile } from 'node:fs/promises'
import path from 'node:path'
import { defineTool, ToolError } from '@tooltx/core'
import type { Workspace } from './workspace.js'

const MAX_MATCHES = 100

/** `grep`: searches the workspace's text files for a regular expression (read-only, parallel-safe). */
export function grepTool(workspace: Workspace) {
  return defineTool({
    name: 'grep',
    description: 'Search the text files of the workspace for a regular expression, line by line.',
    parameters: {
      pattern: { type: 'string', required: true, description: 'A JavaScript regular expression' },
      path: { type: 'string', description: 'Directory to search, relative to the root (default ".")' },
    },
    output: {
      schema: {
        type: 'object',
        additionalProperties: false,
        properties: {
          matches: {
            type: 'array',
            required: true,
            items: {
              type: 'object',
              additionalProperties: false,
              properties: {
                path: { type: 'string', required: true },
                line: { type: 'integer', required: true },
                text: { type: 'string', required: true },
              },
            },
          },
          truncated: { type: 'boolean', required: true },
          total: { type: 'integer', required: true },
        },
      },
      render: (_args, value) => [
        {
          type: 'text',
          text:
            value.matches.length === 0
              ? 'no matches'
              : value.matches.map((m) => `${m.path}:${m.line}: ${m.text}`).join('\n') +
                (value.truncated ? `\n… ${value.total} matches in all` : ''),
        },
      ],
      // The card reads this structured copy; a UI never parses the rendered text.
      presentationMeta: (_args, value) => ({
        matches: value.matches,
        truncated: value.truncated,
        total: value.total,
      }),
    },
    isConcurrencySafe: () => true,
    async execute(args, run) {
      let regex: RegExp
      try {
        regex = new RegExp(args.pattern)
      } catch (error) {
        throw new ToolError(
          'BAD_PATTERN',
          `"${args.pattern}" is not a valid regular expression: ${String(error)}`,
        )
      }
      const matches: { path: string; line: number; text: string }[] = []
      let total = 0
      const pending = [workspace.resolve(args.path ?? '.')]
      while (pending.length > 0) {
        run.signal.throwIfAborted()
        const dir = pending.pop()!
        const entries = await readdir(dir, { withFileTypes: true })
        entries.sort((a, b) => (a.name < b.name ? 1 : -1))
        for (const entry of entries) {
          const full = path.join(dir, entry.name)
          if (entry.isDirectory()) {
            pending.push(full)
            continue
          }
          const text = await readFile(full, 'utf8')
          if (text.includes('\u0000')) continue
          text.split('\n').forEach((line, i) => {
            if (!regex.test(line)) return
            total++
            if (matches.length < MAX_MATCHES)
              matches.push({ path: workspace.relative(full), line: i + 1, text: line.trim() })
          })
        }
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
