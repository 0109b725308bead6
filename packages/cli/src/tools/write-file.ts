import { readFile, writeFile } from 'node:fs/promises'
import { counted } from '../display/counted.js'
import { type ChangeLedger, currentText, type FileChange } from './file-change.js'
import type { Workspace } from './workspace.js'
import { workspaceTool } from './workspace-tool.js'

/** The arguments of `write_file`. */
export interface WriteArguments {
  readonly path: string
  readonly content: string
}

/** The change a `write_file` call would make to the file as it is now (for its approval). */
export async function plannedWrite(workspace: Workspace, args: WriteArguments): Promise<FileChange> {
  return { path: args.path, before: await currentText(workspace, args.path), after: args.content }
}

/**
 * `write_file`: creates or overwrites a text file anywhere in the workspace, creating missing
 * folders inside it (a write: runs exclusively). Before it writes it checks the file against
 * the text its approval's diff was made from (`ledger`, `absent` for a new file), and fails with
 * `CONFLICT`, writing nothing, when the file changed (or appeared) since (K2.16).
 */
export function writeFileTool(workspace: Workspace, ledger: ChangeLedger) {
  return workspaceTool({
    name: 'write_file',
    description:
      'Create a file of the workspace, or overwrite one with new content (missing folders are created). ' +
      'To change part of a file, use edit_file.',
    parameters: {
      path: { type: 'string', required: true, description: 'File path relative to the workspace root' },
      content: { type: 'string', required: true, description: 'The whole text of the file' },
    },
    fields: { path: 'string', bytes: 'integer', created: 'boolean' },
    // The file's text; its path is read as one.
    freeText: ['content'],
    text: (_args, value) =>
      `${value.created ? 'Created' : 'Overwrote'} ${value.path} (${counted(value.bytes, 'byte')})`,
    async execute(args, run, ws) {
      const target = await ws.resolveForWrite(args.path)
      const before = await readFile(target, { encoding: 'utf8', signal: run.signal }).catch(
        (error: NodeJS.ErrnoException) => {
          if (error.code === 'ENOENT') return null
          throw error
        },
      )
      ledger.check(run.token, args.path, before)
      await writeFile(target, args.content, { signal: run.signal })
      return { path: args.path, bytes: Buffer.byteLength(args.content), created: before === null }
    },
    presentCall: (args) => ({
      card: 'generic',
      title: `Write ${args.path}`,
      kind: 'edit',
      locations: [{ path: args.path }],
    }),
  })(workspace)
}
