/**
 * What an address a server binds says about who can reach it (Y1.12, Y1.17): loopback (this
 * machine only), a wildcard (every interface) or one other address, and the names a request's
 * `Host` header may then carry.
 */
import { isIP } from 'node:net'
import { hostname, networkInterfaces } from 'node:os'
import { localhostAllowedHostnames } from '@modelcontextprotocol/server'

/** `::1` → `[::1]`, as `Host` headers and URLs spell IPv6 addresses. */
export const hostName = (host: string) => (host.includes(':') && !host.startsWith('[') ? `[${host}]` : host)

/** `[::1]` → `::1`; an IPv4-mapped IPv6 address (`::ffff:127.0.0.1`) → its IPv4 address. */
function plain(host: string): string {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase()
  return /^::ffff:\d+\.\d+\.\d+\.\d+$/.test(bare) ? bare.slice('::ffff:'.length) : bare
}

/**
 * Whether binding `host` serves this machine only: `localhost` (and names under `.localhost`),
 * an address in 127.0.0.0/8, or `::1`, IPv6 brackets and IPv4 mapping allowed. Any other address
 * or name may be reachable from elsewhere.
 */
export function isLoopbackHost(host: string): boolean {
  const bare = plain(host)
  if (bare === 'localhost' || bare.endsWith('.localhost')) return true
  if (isIP(bare) === 4) return bare.startsWith('127.')
  return isIP(bare) === 6 && /^(0{0,4}:){2,7}0{0,3}1$/.test(bare)
}

/** Whether binding `host` listens on every interface (`0.0.0.0`, `::`). */
export function isWildcardHost(host: string): boolean {
  const bare = plain(host)
  return bare === '0.0.0.0' || (isIP(bare) === 6 && /^[0:]+$/.test(bare))
}

/**
 * The names (no port; IPv6 in brackets) a request to a server bound to `host` may give as its
 * `Host`: for a loopback address the loopback names (`localhost`, `127.0.0.1`, `[::1]`) and the
 * address itself; for a wildcard the machine's host name and the addresses of its interfaces
 * that are not loopback; for any other address or name that one alone. A wildcard thus never
 * admits a loopback name: a page that rebinds a name to 127.0.0.1 is refused.
 */
export function boundHostNames(host: string): string[] {
  if (isLoopbackHost(host)) return [...new Set([...localhostAllowedHostnames(), hostName(host)])]
  if (!isWildcardHost(host)) return [hostName(host)]
  const addresses = Object.values(networkInterfaces())
    .flatMap((entries) => entries ?? [])
    .filter((entry) => !entry.internal)
    .map((entry) => hostName(entry.address))
  return [...new Set([hostname(), ...addresses])]
}

/**
 * The host to put in the URL of a server bound to `host`: `host` itself, except for a wildcard,
 * which no client can connect to by name: there, the machine's first IPv4 interface address that
 * is not loopback, else its host name.
 */
export function urlHost(host: string): string {
  if (!isWildcardHost(host)) return hostName(host)
  const ipv4 = Object.values(networkInterfaces())
    .flatMap((entries) => entries ?? [])
    .find((entry) => !entry.internal && entry.family === 'IPv4')
  return ipv4?.address ?? hostname()
}
