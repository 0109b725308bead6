/**
 * What a failure the server reports becomes (Y2.6, Y2.19, Y2.20). A server is not a local
 * policy: unless it is trusted, it cannot make a failure read as a decision tooltx made.
 */
import { ToolError } from '@tooltx/core'
import { RESULT_META_KEY } from '../call-result.js'
import { fromMcpContent } from '../content-blocks.js'

/** The failure code of a failure the server reported (Y2.19). */
export const REMOTE_ERROR = 'MCP_REMOTE_ERROR'

/** The `MCP_REMOTE_ERROR` failure with `message` (Y2.19). */
export function remoteError(message: string): ToolError {
  return new ToolError(REMOTE_ERROR, message, { name: 'McpRemoteError' })
}

/**
 * The error a remote `isError: true` result becomes (Y2.6, Y2.19, Y2.20): a trusted server's
 * tooltx code and name as they are; any other failure is `MCP_REMOTE_ERROR`, the code an
 * untrusted server named (`DENIED`, say: a decision no local policy made) only in the message.
 */
export function remoteFailure(
  result: { content: unknown[]; _meta?: Record<string, unknown> },
  trusted: boolean,
): ToolError {
  const said = result.content
    .map(fromMcpContent)
    .map((b) => (b.type === 'text' ? (b.text as string) : `[${b.type}]`))
    .join('\n')
    .replace(/^Error: /, '')
  const text = said === '' ? 'the MCP tool failed without saying why' : said
  const remote = result._meta?.[RESULT_META_KEY] as { code?: unknown; name?: unknown } | undefined
  const code =
    typeof remote?.code === 'string' && /^[A-Z][A-Z0-9_]*$/.test(remote.code) ? remote.code : undefined
  if (code === undefined) return remoteError(text)
  if (!trusted) return remoteError(`${text} (server code: ${code})`)
  const name = typeof remote?.name === 'string' && remote.name !== '' ? remote.name : 'ToolError'
  return new ToolError(code, text, { name })
}
