import { readFile, writeFile } from 'node:fs/promises'
import { ToolError } from '@tooltx/core'
import { counted } from '../display/counted.js'
import { type ChangeLedger, currentText, type FileChange, textOf } from './file-change.js'
import type { Workspace } from './workspace.js'
import { workspaceTool } from './workspace-tool.js'

/** The arguments of `edit_file`. */
export interface EditArguments {
  readonly path: string
  readonly old_text: string
  readonly new_text: string
  readonly replace_all?: boolean | undefined
}

/**
 * `text` with `edit.old_text` replaced by `edit.new_text`, exactly (no pattern, no whitespace
 * folding), and how many places changed. Refuses an empty `old_text` (`BAD_EDIT`), one not
 * found (`NO_MATCH`) and one found more than once without `replace_all` (`AMBIGUOUS_MATCH`),
 * each saying how many matches there were and what to do (K1.10). Total on any strings.
 */
export function replaceExactly(text: string, edit: EditArguments): { text: string; replacements: number } {
  const { path, old_text: old, new_text: next } = edit
  if (old === '')
    throw new ToolError('BAD_EDIT', 'old_text is empty; name the exact text to replace, or use write_file')
  const count = text.split(old).length - 1
  if (count === 0) {
    throw new ToolError(
      'NO_MATCH',
      `found 0 matches of old_text in "${path}"; read the file and copy the text exactly, whitespace included`,
    )
  }
  if (count > 1 && edit.replace_all !== true) {
    throw new ToolError(
      'AMBIGUOUS_MATCH',
      `found ${count} matches of old_text in "${path}"; include more of the surrounding lines so it matches once, or pass replace_all: true`,
    )
  }
  return { text: text.split(old).join(next), replacements: count }
}

/** The change an `edit_file` call would make to the file as it is now (for its approval). */
export async function plannedEdit(workspace: Workspace, args: EditArguments): Promise<FileChange> {
  const before = await currentText(workspace, args.path)
  if (before === null) throw new ToolError('NOT_FOUND', `"${args.path}" does not exist in the workspace`)
  return { path: args.path, before, after: replaceExactly(before, args).text }
}

/**
 * `edit_file`: replaces exact text in an existing workspace file (a write: runs exclusively).
 * Before it writes it checks the file against the text its approval's diff was made from
 * (`ledger`), and fails with `CONFLICT`, writing nothing, when the file changed since (K2.16).
 */
export function editFileTool(workspace: Workspace, ledger: ChangeLedger) {
  return workspaceTool({
    name: 'edit_file',
    description:
      'Replace exact text in a file of the workspace. old_text must match the file exactly (whitespace included) ' +
      'and only once, unless replace_all is true. Read the file first.',
    parameters: {
      path: { type: 'string', required: true, description: 'File path relative to the workspace root' },
      old_text: { type: 'string', required: true, description: 'The exact text to replace' },
      new_text: { type: 'string', required: true, description: 'The text to put in its place' },
      replace_all: {
        type: 'boolean',
        description: 'Replace every match instead of exactly one (default false)',
      },
    },
    fields: { path: 'string', replacements: 'integer' },
    // The texts are file content, not paths; the path is read as one.
    freeText: ['old_text', 'new_text'],
    text: (_args, value) => `Edited ${value.path} (${counted(value.replacements, 'replacement')})`,
    async execute(args, run, ws) {
      const target = await ws.resolve(args.path)
      const before = textOf(await readFile(target, { signal: run.signal }), args.path)
      ledger.check(run.token, args.path, before)
      const edited = replaceExactly(before, args)
      await writeFile(target, edited.text, { signal: run.signal })
      return { path: args.path, replacements: edited.replacements }
    },
    presentCall: (args) => ({
      card: 'generic',
      title: `Edit ${args.path}`,
      kind: 'edit',
      locations: [{ path: args.path }],
    }),
  })(workspace)
}
