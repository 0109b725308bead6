import type { ServerResponse } from 'node:http'

/** The content type of each file kind the built page holds. */
export const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
}

/** Headers on every response: the page loads nothing from elsewhere and talks to nothing but this server (G5.1). */
export const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
} as const

/** Answers `status` with `body` as JSON, never cached. */
export function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, {
    ...SECURITY_HEADERS,
    'content-type': 'application/json',
    'cache-control': 'no-store',
  })
  res.end(JSON.stringify(body))
}

/** Answers `status` with `body` as one line of plain text. */
export function text(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { ...SECURITY_HEADERS, 'content-type': 'text/plain; charset=utf-8' })
  res.end(`${body}\n`)
}

/** Answers 404 with `{ error: message }`. */
export function notFound(res: ServerResponse, message: string): void {
  json(res, 404, { error: message })
}

/** The whole number query parameter `name` of `url`, or `fallback` when it is absent or not one. */
export function queryCount(url: URL, name: string, fallback: number): number {
  const value = Number(url.searchParams.get(name) ?? Number.NaN)
  return Number.isSafeInteger(value) && value >= 0 ? value : fallback
}
