import http from 'node:http'

/**
 * The HTTP status of an MCP `initialize` POST to `url` sent with chosen headers (a `host` header
 * included, which `fetch` cannot set): the raw request the Host, Origin and token checks judge.
 */
export function rawInitialize(url: URL, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
      },
      (res) => {
        res.resume()
        resolve(res.statusCode ?? 0)
      },
    )
    req.on('error', reject)
    const params = {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'raw', version: '1' },
    }
    req.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params }))
  })
}
