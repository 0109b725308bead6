/**
 * How `tooltx run --mcp <url>` gets authorized by a remote MCP server that asks for OAuth
 * (Y5.20): the authorization code flow with PKCE through a loopback redirect, the URL printed
 * on stderr and opened in the user's browser when there is a terminal to come back to, and the
 * tokens kept in the user's token file (0600) for the next run.
 */
import { spawn } from 'node:child_process'
import { type AuthorizationCodeAuth, defaultTokenFile, fileTokenStore } from '@tooltx/mcp'
import type { Output } from '../display/output.js'

/** The `auth` of the HTTP server `name` for a run writing to `out`, with the run's `env`. */
export function runAuthorization(name: string, out: Output, env: NodeJS.ProcessEnv): AuthorizationCodeAuth {
  return {
    store: fileTokenStore(defaultTokenFile(env)),
    clientName: 'tooltx CLI',
    onAuthorizationUrl(url) {
      out.error(
        `MCP server "${name}" asks you to authorize tooltx. Open this URL in your browser:\n  ${url.href}\nWaiting up to 5 minutes for the authorization…`,
      )
      if (out.interactive && env.TOOLTX_NO_BROWSER === undefined) openBrowser(url)
    },
  }
}

/** Opens `url` with the platform's opener, if there is one; a failure leaves the printed URL. */
function openBrowser(url: URL): void {
  // No shell: the URL's `&` and quotes reach the opener as one argument.
  const [command, args] =
    process.platform === 'darwin'
      ? ['open', [url.href]]
      : process.platform === 'win32'
        ? ['rundll32', ['url.dll,FileProtocolHandler', url.href]]
        : ['xdg-open', [url.href]]
  try {
    const child = spawn(command, args, { stdio: 'ignore', detached: true })
    child.on('error', () => undefined)
    child.unref()
  } catch {
    // The URL is printed; the user opens it by hand.
  }
}
