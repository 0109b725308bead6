/**
 * Where the OAuth state of remote MCP servers is kept between runs (Y5.18, Y5.19): per server
 * URL, the tokens, the client registration and the discovered metadata. `memoryTokenStore()`
 * forgets at exit; `fileTokenStore()` keeps one JSON file under the user's config directory,
 * readable and writable by its owner only.
 */
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import { homedir } from 'node:os'
import { dirname, join } from 'node:path'
import type {
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from '@modelcontextprotocol/client'

/** Tokens as kept: the token response, plus when the access token expires (epoch ms). */
export type KeptTokens = StoredOAuthTokens & { expires_at?: number }

/** What is kept for one server. Every field holds secrets except `discovery`. */
export interface ServerAuthRecord {
  tokens?: KeptTokens
  client?: StoredOAuthClientInformation
  discovery?: OAuthDiscoveryState
}

/** A place for {@link ServerAuthRecord}s, keyed by the server's URL. */
export interface TokenStore {
  /** The record of `server`, or `undefined`; never throws for a missing or unreadable entry. */
  load(server: string): Promise<ServerAuthRecord | undefined>
  /** Replaces the record of `server`; `undefined` deletes it. */
  save(server: string, record: ServerAuthRecord | undefined): Promise<void>
}

/** A store that lives as long as the process (the default in code). */
export function memoryTokenStore(): TokenStore {
  const records = new Map<string, ServerAuthRecord>()
  return {
    load: async (server) => structuredClone(records.get(server)),
    async save(server, record) {
      if (record === undefined) records.delete(server)
      else records.set(server, structuredClone(record))
    },
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value)

/**
 * The parts of a record read from a file that have the shape the flow relies on; a part that
 * was edited into another shape is left out, so it is obtained again rather than trusted.
 */
function keptRecord(value: unknown): ServerAuthRecord | undefined {
  if (!isObject(value)) return undefined
  const { tokens, client, discovery } = value
  const record: ServerAuthRecord = {}
  if (isObject(tokens) && typeof tokens.access_token === 'string') record.tokens = tokens as KeptTokens
  if (isObject(client) && typeof client.client_id === 'string')
    record.client = client as StoredOAuthClientInformation
  if (isObject(discovery) && typeof discovery.authorizationServerUrl === 'string')
    record.discovery = discovery as unknown as OAuthDiscoveryState
  return record
}

/**
 * The default token file: `$XDG_CONFIG_HOME/tooltx/mcp-oauth.json`, else
 * `%APPDATA%\tooltx\mcp-oauth.json` on Windows, else `~/.config/tooltx/mcp-oauth.json`.
 */
export function defaultTokenFile(env: NodeJS.ProcessEnv = process.env): string {
  const base =
    env.XDG_CONFIG_HOME ||
    (process.platform === 'win32' && env.APPDATA ? env.APPDATA : join(homedir(), '.config'))
  return join(base, 'tooltx', 'mcp-oauth.json')
}

/**
 * A store in one JSON file (default {@link defaultTokenFile}). The directory is created with
 * mode 0700 and the file written with mode 0600 through a temporary file and a rename, so a
 * reader never sees half a file and no other user can read a token. A file that is missing or
 * not JSON reads as empty, and a part of a record of the wrong shape as absent; writes from one
 * process are serialized.
 */
export function fileTokenStore(path: string = defaultTokenFile()): TokenStore {
  let queue: Promise<unknown> = Promise.resolve()
  const readAll = async (): Promise<Record<string, ServerAuthRecord>> => {
    try {
      const parsed: unknown = JSON.parse(await readFile(path, 'utf8'))
      return isObject(parsed) ? (parsed as Record<string, ServerAuthRecord>) : {}
    } catch {
      return {}
    }
  }
  const writeAll = async (records: Record<string, ServerAuthRecord>) => {
    await mkdir(dirname(path), { recursive: true, mode: 0o700 })
    const temporary = `${path}.${process.pid}.tmp`
    await writeFile(temporary, `${JSON.stringify(records, null, 2)}\n`, { mode: 0o600 })
    // `mode` applies only when the file is created: a left-over temporary file keeps its own.
    await chmod(temporary, 0o600)
    await rename(temporary, path)
  }
  return {
    load: async (server) => {
      await queue
      return keptRecord((await readAll())[server])
    },
    save(server, record) {
      const next = queue.then(async () => {
        const records = await readAll()
        if (record === undefined) delete records[server]
        else records[server] = record
        await writeAll(records)
      })
      queue = next.catch(() => undefined)
      return next
    },
  }
}
