import { readFile, writeFile } from 'node:fs/promises'
import { ToolError } from '@tooltx/core'
import { counted } from '../display/counted.js'
import { workspaceTool } from './workspace-tool.js'

const NOTE_NAME = /^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,63}\.md$/

const notePath = (name: string) => `notes/${name}`

/** `write_note`: writes a Markdown note under `notes/` of the workspace (a write: runs exclusively). */
export const writeNoteTool = workspaceTool({
  name: 'write_note',
  description: 'Write (or overwrite) a Markdown note in the notes/ folder of the workspace.',
  parameters: {
    name: { type: 'string', required: true, description: 'File name ending in .md, e.g. todo-summary.md' },
    text: { type: 'string', required: true, description: 'The full Markdown text of the note' },
  },
  fields: { path: 'string', bytes: 'integer', created: 'boolean' },
  // The note's Markdown body; its name is the path, and is read as one.
  freeText: ['text'],
  text: (_args, value) =>
    `${value.created ? 'Created' : 'Updated'} ${value.path} (${counted(value.bytes, 'byte')})`,
  async execute(args, _run, workspace) {
    if (!NOTE_NAME.test(args.name)) {
      throw new ToolError('BAD_NOTE_NAME', `note name "${args.name}" must be a plain file name ending in .md`)
    }
    const target = await workspace.resolveForWrite(notePath(args.name))
    const created = await readFile(target, 'utf8').then(
      () => false,
      () => true,
    )
    await writeFile(target, args.text)
    return { path: notePath(args.name), bytes: Buffer.byteLength(args.text), created }
  },
  presentCall: (args) => ({
    card: 'diff',
    title: `Write ${notePath(args.name)}`,
    diffs: [{ path: notePath(args.name), oldText: null, newText: args.text }],
    locations: [{ path: notePath(args.name) }],
  }),
})
