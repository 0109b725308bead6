/** Names of imported tools (Y2.2): `mcp__<server>__<tool>`, fitted to the tooltx tool-name rule. */

/** Every character outside `[A-Za-z0-9_-]` becomes `_`. */
export const sanitize = (part: string) => part.replace(/[^A-Za-z0-9_-]/g, '_')

/**
 * The tooltx name of the remote tool `tool` of server `server` (Y2.2): `mcp__<server>__<tool>`
 * with both parts sanitized and the whole cut to 64 characters, so it always matches
 * `TOOL_NAME_PATTERN`. Two remote names may map to one tooltx name; the importer reports that.
 */
export function importedName(server: string, tool: string): string {
  return `mcp__${sanitize(server)}__${sanitize(tool)}`.slice(0, 64)
}
