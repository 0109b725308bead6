import { counted } from '../display/counted.js'
import { workspaceTool } from './workspace-tool.js'

const MAX_ENTRIES = 200

/**
 * `list_files`: lists files under a workspace directory (read-only, parallel-safe); protected
 * files and links out of the workspace are not listed (K1.1, K1.2).
 */
export const listFilesTool = workspaceTool({
  name: 'list_files',
  description: 'List the files under a directory of the workspace, recursively.',
  parameters: {
    path: { type: 'string', description: 'Directory relative to the workspace root (default ".")' },
  },
  fields: { paths: { type: 'array', items: { type: 'string' } }, truncated: 'boolean', total: 'integer' },
  text: (_args, value) =>
    value.paths.join('\n') + (value.truncated ? `\n… ${counted(value.total, 'file')} in all` : ''),
  meta: 'value',
  readOnly: true,
  async execute(args, run, workspace) {
    const found: string[] = []
    for await (const file of workspace.files(args.path ?? '.', run.signal)) found.push(file.path)
    found.sort()
    return {
      paths: found.slice(0, MAX_ENTRIES),
      truncated: found.length > MAX_ENTRIES,
      total: found.length,
    }
  },
  presentCall: (args) => ({ card: 'generic', title: `List ${args.path ?? '.'}`, kind: 'search' }),
  presentResult: (_args, result) => {
    const meta = result.meta as { paths?: unknown; truncated?: unknown; total?: unknown } | undefined
    if (result.isError || meta === undefined || !Array.isArray(meta.paths)) return undefined
    return {
      card: 'search',
      shape: 'paths',
      paths: meta.paths.map(String),
      truncated: meta.truncated === true,
      total: typeof meta.total === 'number' ? meta.total : meta.paths.length,
    }
  },
})
