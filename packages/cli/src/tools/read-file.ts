import { readFile } from 'node:fs/promises'
import { ToolError } from '@tooltx/core'
import { workspaceTool } from './workspace-tool.js'

const DEFAULT_LIMIT = 200

/**
 * `read_file`: reads a UTF-8 text file of the workspace, with line numbers (read-only,
 * parallel-safe); refuses protected files and links out of the workspace (K1.1, K1.2).
 */
export const readFileTool = workspaceTool({
  name: 'read_file',
  description: 'Read a UTF-8 text file of the workspace. Returns numbered lines.',
  parameters: {
    path: { type: 'string', required: true, description: 'File path relative to the workspace root' },
    offset: { type: 'integer', description: 'First line to read, counting from 1 (default 1)' },
    limit: { type: 'integer', description: `How many lines to read (default ${DEFAULT_LIMIT})` },
  },
  fields: {
    path: 'string',
    offset: 'integer',
    lines: { type: 'array', items: { type: 'string' } },
    totalLines: 'integer',
  },
  text: (_args, value) =>
    value.lines.map((line, i) => `${String(value.offset + i).padStart(4)}  ${line}`).join('\n'),
  meta: (_args, value) => ({
    path: value.path,
    offset: value.offset,
    totalLines: value.totalLines,
    lines: value.lines.map((text, i) => ({ number: value.offset + i, text })),
  }),
  readOnly: true,
  async execute(args, run, workspace) {
    const offset = Math.max(1, args.offset ?? 1)
    const limit = Math.max(1, args.limit ?? DEFAULT_LIMIT)
    const file = await workspace.resolve(args.path)
    const text = await readFile(file, { encoding: 'utf8', signal: run.signal })
    if (text.includes('\u0000')) throw new ToolError('NOT_TEXT', `"${args.path}" is a binary file, not text`)
    const all = text.split('\n')
    if (all.at(-1) === '') all.pop()
    return {
      path: args.path,
      offset,
      lines: all.slice(offset - 1, offset - 1 + limit),
      totalLines: all.length,
    }
  },
  presentCall: (args) => ({
    card: 'generic',
    title: `Read ${args.path}`,
    kind: 'read',
    locations: [{ path: args.path }],
  }),
  presentResult: (args, result) => {
    const meta = result.meta as
      | { path?: string; offset?: number; totalLines?: number; lines?: { number: number; text: string }[] }
      | undefined
    if (result.isError || meta === undefined || !Array.isArray(meta.lines)) return undefined
    return {
      card: 'read',
      path: meta.path ?? args.path,
      offset: meta.offset ?? 1,
      lines: meta.lines,
      totalLines: meta.totalLines ?? meta.lines.length,
    }
  },
})
