/**
 * The loopback authorization server and the MCP server it protects (fixtures/oauth-server.mjs),
 * each in its own process, and a program that plays the user's browser.
 */
import { spawn } from 'node:child_process'
import { cleanups, fixture, stdoutLines } from './mcp.fixtures.js'

/** The machine client the authorization server knows from the start (client credentials). */
export const MACHINE = { clientId: 'machine', clientSecret: 'machine-secret-7f3a9c1e5b' } as const

async function start(role: 'as' | 'rs', config: object): Promise<URL> {
  const child = spawn(process.execPath, [fixture('oauth-server.mjs'), role, JSON.stringify(config)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  cleanups.push(() => {
    child.kill()
  })
  return new URL((JSON.parse(await stdoutLines(child).first) as { url: string }).url)
}

/** What the servers were asked, read from their own logs. */
export interface OAuthServers {
  issuer: URL
  /** The protected MCP endpoint, `<rs>/mcp`. */
  mcp: URL
  /** The authorization server's log: registrations, authorization requests, token requests. */
  asLog(): Promise<Record<string, unknown>[]>
  /** The requests the MCP server accepted, with the scope of their token. */
  seen(): Promise<{ method: string; scope: string }[]>
}

/**
 * An authorization server (`expiresIn` seconds per access token, default 3600) and an MCP
 * server trusting it; `rs` adds to the MCP server's config (`resource`, `redirectTo`).
 */
export async function startOAuthServers(
  options: {
    expiresIn?: number
    /** Offer client ID metadata documents. */
    cimd?: boolean
    /** More pre-registered machine clients: a secret, or a public key for private_key_jwt. */
    clients?: { id: string; secret?: string; publicKey?: string }[]
    /** The PEM public key of the IdP whose JWT authorization grants the server takes. */
    idpPublicKey?: string
    rs?: { resource?: string; redirectTo?: string }
  } = {},
): Promise<OAuthServers> {
  const issuer = await start('as', {
    expiresIn: options.expiresIn ?? 3600,
    cimd: options.cimd === true,
    ...(options.idpPublicKey === undefined ? {} : { idpPublicKey: options.idpPublicKey }),
    clients: [{ id: MACHINE.clientId, secret: MACHINE.clientSecret }, ...(options.clients ?? [])],
  })
  const rs = await start('rs', { issuer: issuer.origin, ...options.rs })
  const get = async <T>(url: URL): Promise<T> => (await (await fetch(url)).json()) as T
  return {
    issuer,
    mcp: new URL('/mcp', rs),
    asLog: () => get(new URL('/_log', issuer)),
    seen: () => get(new URL('/_seen', rs)),
  }
}

/**
 * Plays the user's browser: opens the authorization URL and follows the redirects, which end
 * at the client's loopback listener. Records each URL it was given.
 */
export function browser(): { open(url: URL): Promise<void>; opened: URL[] } {
  const opened: URL[] = []
  return {
    opened,
    async open(url) {
      opened.push(url)
      const response = await fetch(url)
      await response.text()
    },
  }
}
