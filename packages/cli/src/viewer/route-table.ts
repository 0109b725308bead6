import type { IncomingMessage, ServerResponse } from 'node:http'

/** One request as a route's handler sees it: the decoded path's parameters and the server's state. */
export interface RouteRequest<State> {
  readonly req: IncomingMessage
  readonly res: ServerResponse
  readonly url: URL
  /** `:name` segments by name, and `*` for the rest of the path (joined with `/`). */
  readonly params: Readonly<Record<string, string>>
  readonly state: State
}

/**
 * One entry of a route table: `method`, a `path` pattern of literal segments, `:name` segments
 * (any one segment) and an optional final `*` (any number of segments, none included), and the
 * handler that answers. Patterns match the decoded, non-empty segments of the request's path.
 */
export interface Route<State> {
  readonly method: string
  readonly path: string
  readonly handler: (request: RouteRequest<State>) => void | Promise<void>
}

/** A route `match` chose and the parameters its pattern bound. */
export interface RouteMatch<State> {
  readonly route: Route<State>
  readonly params: Readonly<Record<string, string>>
}

/** The parameters `pattern` binds on `segments`, or `undefined` when it does not match them. */
function bind(pattern: string, segments: readonly string[]): Record<string, string> | undefined {
  const parts = pattern.split('/').filter(Boolean)
  const params: Record<string, string> = {}
  for (const [i, part] of parts.entries()) {
    if (part === '*' && i === parts.length - 1) {
      params['*'] = segments.slice(i).join('/')
      return params
    }
    const segment = segments[i]
    if (segment === undefined) return undefined
    if (part.startsWith(':')) params[part.slice(1)] = segment
    else if (part !== segment) return undefined
  }
  return parts.length === segments.length ? params : undefined
}

/** The first route of `routes` for `method` whose pattern matches `segments`, or `undefined`. */
export function matchRoute<State>(
  routes: readonly Route<State>[],
  method: string,
  segments: readonly string[],
): RouteMatch<State> | undefined {
  for (const route of routes) {
    if (route.method !== method) continue
    const params = bind(route.path, segments)
    if (params !== undefined) return { route, params }
  }
  return undefined
}
