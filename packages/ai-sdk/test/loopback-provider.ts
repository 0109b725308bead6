/** An `@ai-sdk/openai-compatible` provider on a real loopback Chat Completions server. */
import * as compatible from '@ai-sdk/openai-compatible'
import { wireServer } from '../../agent/test/loopback-server.js'
import { chatChunk, DONE } from '../../agent/test/wire-fixtures.js'

/**
 * A loopback server that answers the first request with the chunks `first` and every later one
 * with the text reply `text`, and a provider named `loop` on it (API key `k`). The server closes
 * when the test finishes.
 */
export async function loopbackProvider(first: string[], text: string) {
  const textReply = [chatChunk({ role: 'assistant', content: text }), chatChunk({}, 'stop'), DONE]
  const server = await wireServer((n) => ({ sse: n === 1 ? first : textReply }), '/v1')
  const provider = compatible.createOpenAICompatible({ name: 'loop', baseURL: server.baseURL, apiKey: 'k' })
  return { server, provider }
}
