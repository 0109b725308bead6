/**
 * `tools/list` for one scope view (Y1.2–Y1.4): the view's model-facing tools in name order, each
 * with the schemas and the annotations its definition declares, paged with opaque cursors.
 */
import type { Tool, ToolAnnotations } from '@modelcontextprotocol/server'
import type { AnyToolDefinition, ToolView } from '@tooltx/core'

/** Derives MCP annotations from a definition; the default is {@link defaultAnnotations}. */
export type AnnotationRule = (def: AnyToolDefinition) => ToolAnnotations

/**
 * The default annotation mapping (Y1.3): a definition that declares `isConcurrencySafe` says
 * its calls may overlap with any other call, which tooltx grants only to tools without
 * conflicting effects, so it is announced `readOnlyHint: true, idempotentHint: true`; any other
 * definition `readOnlyHint: false`. Nothing claims `destructiveHint` or `openWorldHint`: the
 * definition says nothing about them, and MCP's defaults are the cautious ones.
 */
export function defaultAnnotations(def: AnyToolDefinition): ToolAnnotations {
  return def.isConcurrencySafe === undefined
    ? { readOnlyHint: false }
    : { readOnlyHint: true, idempotentHint: true }
}

/** `read_file` → `Read file`: a human title for a tool name. */
export function titleOf(name: string): string {
  const words = name.replace(/[_-]+/g, ' ').trim()
  return words === '' ? name : words[0]!.toUpperCase() + words.slice(1)
}

/** True iff `schema` describes only JSON objects, as MCP's `outputSchema` must (Y1.4). */
export function isObjectSchema(schema: unknown): schema is Record<string, unknown> {
  return typeof schema === 'object' && schema !== null && (schema as { type?: unknown }).type === 'object'
}

/**
 * The MCP tool for `def` as `view` shows it (Y1.2, Y1.4): the model schema as `inputSchema`,
 * `output.schema` as `outputSchema` when its root is an object, a title from the parameters'
 * `title` or the name, and the annotations of `annotate`.
 */
export function toMcpTool(
  schema: { name: string; description: string; parameters: Record<string, unknown> },
  def: AnyToolDefinition,
  annotate: AnnotationRule,
): Tool {
  const title = typeof schema.parameters.title === 'string' ? schema.parameters.title : titleOf(schema.name)
  const tool: Tool = {
    name: schema.name,
    title,
    description: schema.description,
    inputSchema: { ...schema.parameters, type: 'object' },
    annotations: { title, ...annotate(def) },
  }
  if (isObjectSchema(def.output.schema)) tool.outputSchema = def.output.schema as Tool['outputSchema']
  return tool
}

/** Thrown for a cursor this server never issued; the server answers it as invalid params. */
export class InvalidCursorError extends Error {}

const encodeCursor = (name: string) => Buffer.from(name, 'utf8').toString('base64url')

function decodeCursor(cursor: string): string {
  const name = Buffer.from(cursor, 'base64url').toString('utf8')
  if (name === '' || encodeCursor(name) !== cursor)
    throw new InvalidCursorError(`invalid cursor ${JSON.stringify(cursor)}`)
  return name
}

/**
 * One page of the view's tools (Y1.2): sorted by name, at most `pageSize`, starting after the
 * tool the cursor names. A cursor names a position, not an offset, so a tool added or removed
 * meanwhile neither repeats nor skips another one.
 */
export function listPage(
  view: ToolView,
  cursor: string | undefined,
  pageSize: number,
  annotate: AnnotationRule,
): { tools: Tool[]; nextCursor?: string } {
  const after = cursor === undefined ? undefined : decodeCursor(cursor)
  const schemas = view.surface().tools.filter((s) => after === undefined || s.name > after)
  const page = schemas.slice(0, pageSize)
  const tools: Tool[] = []
  for (const schema of page) {
    const def = view.get(schema.name)
    if (def !== undefined) tools.push(toMcpTool(schema, def, annotate))
  }
  return schemas.length > pageSize ? { tools, nextCursor: encodeCursor(page.at(-1)!.name) } : { tools }
}
