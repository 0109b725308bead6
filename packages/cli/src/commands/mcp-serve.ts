/**
 * `tooltx mcp serve` (Y3): the CLI's workspace tools, with the CLI's policy (the secrets guard,
 * approval before writes), served as an MCP server over stdio or Streamable HTTP.
 */
import { statSync } from 'node:fs'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { mcpServer, serveHttp, serveStdio } from '@tooltx/mcp'
import { type Output, UsageError } from '../output.js'
import { createToolset } from '../toolset.js'

/** The help of `tooltx mcp serve`. */
export const MCP_SERVE_HELP = `Usage: tooltx mcp serve [options]

Serves the workspace tools (list, read, grep, run checks, write a note) to an MCP client, with
the CLI's policy: secrets (.env files) are never read, and every write asks the client's user
first (denied when the client cannot ask). Over stdio by default: stdout is the MCP channel.

Options:
  --workspace DIR  the directory the tools may touch (default: the current directory)
  --http [HOST]:PORT  serve Streamable HTTP instead, on HOST (default 127.0.0.1) and PORT
  --token T        with --http, require Authorization: Bearer T (also TOOLTX_MCP_TOKEN)
  -h, --help       show this help`

/** `[HOST]:PORT` → host and port; a usage error names what is wrong. */
function listenAddress(value: string): { host: string; port: number } {
  const match = /^(.*):(\d{1,5})$/.exec(value)
  const port = match === null ? Number.NaN : Number(match[2])
  if (match === null || port > 65_535)
    throw new UsageError(
      `--http needs [HOST]:PORT, e.g. --http :8848 or --http 127.0.0.1:8848; got "${value}"`,
      2,
    )
  const host = match[1]!.replace(/^\[(.*)\]$/, '$1')
  return { host: host === '' ? '127.0.0.1' : host, port }
}

/** Runs `tooltx mcp serve` with the arguments after `serve`; resolves once the server is up. */
export async function mcpServeCommand(args: string[], out: Output, env: NodeJS.ProcessEnv): Promise<number> {
  let values: { workspace?: string; http?: string; token?: string; help?: boolean }
  let positionals: string[]
  try {
    ;({ values, positionals } = parseArgs({
      args,
      allowPositionals: true,
      options: {
        workspace: { type: 'string' },
        http: { type: 'string' },
        token: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }))
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\n\n${MCP_SERVE_HELP}`, 2)
  }
  if (values.help) {
    out.line(MCP_SERVE_HELP)
    return 0
  }
  if (positionals.length > 0)
    throw new UsageError(
      `mcp serve takes no arguments, got "${positionals.join(' ')}"\n\n${MCP_SERVE_HELP}`,
      2,
    )
  const workspace = path.resolve(values.workspace ?? '.')
  if (!statSync(workspace, { throwIfNoEntry: false })?.isDirectory())
    throw new UsageError(
      `--workspace ${workspace} is not a directory; pass the folder the tools may touch`,
      2,
    )
  const token = values.token ?? env.TOOLTX_MCP_TOKEN
  if (token !== undefined && values.http === undefined)
    throw new UsageError(
      '--token needs --http: over stdio the client that spawned the server is the only peer',
      2,
    )
  // Over stdio, stdout carries MCP: contained errors go to stderr.
  const { runtime, scope } = createToolset({
    root: workspace,
    reportError: (e) => out.error(`tooltx: ${String(e)}`),
  })
  const server = mcpServer(runtime, { scope, name: 'tooltx-workspace', version: '0.1.0' })
  if (values.http === undefined) {
    await serveStdio(server)
    out.error(`tooltx: serving ${workspace} over MCP stdio`)
    return 0
  }
  const endpoint = await serveHttp(server, {
    ...listenAddress(values.http),
    ...(token === undefined ? {} : { bearerToken: token }),
  })
  out.line(
    `MCP server for ${workspace} at ${endpoint.url.href}${token === undefined ? '' : ' (bearer token required)'}`,
  )
  return 0
}
