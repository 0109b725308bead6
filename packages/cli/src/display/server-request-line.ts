/** The timeline's line for a server's request of the host (Y4.12): what it asked, who decided, the answer. */
import type { ServerRequestData } from '@tooltx/session'
import { counted } from './counted.js'

/** How many characters (code points) of a reply the line shows. */
const REPLY_SHOWN = 200

const DECIDER = { policy: "the host's policy", approver: 'the approver', handler: 'the person' } as const

/**
 * One line for a `server/request` (L1.10): `⇄ MCP server "<name>" asked <model> for a completion
 * (<n> messages, <c> characters, at most <t> tokens)` or `⇄ MCP server "<name>" asked "<message>"
 * (fields <names>)`, then ` during call <ids>` when it arrived during calls, then
 * `: <outcome> by <who>` with the reason or the reply's first 200 characters.
 */
export function serverRequestLine(data: ServerRequestData): string {
  const during = data.calls.length === 0 ? '' : ` during call ${data.calls.join(', ')}`
  const by = ` by ${DECIDER[data.by]}`
  const why = data.reason === undefined ? '' : `: ${data.reason}`
  if (data.kind === 'elicitation') {
    const fields = data.fields.length === 0 ? 'no fields' : `fields ${data.fields.join(', ')}`
    const answered = data.answered === undefined ? '' : ` (answered ${data.answered.join(', ') || 'nothing'})`
    return `⇄ MCP server "${data.server}" asked ${JSON.stringify(data.message)} (${fields})${during}: ${data.outcome}${by}${answered}${why}`
  }
  const size = `${counted(data.messages, 'message')}, ${counted(data.characters, 'character')}, at most ${data.maxTokens} tokens`
  const head = `⇄ MCP server "${data.server}" asked ${data.model} for a completion (${size})${during}`
  if (data.reply === undefined) return `${head}: refused${by}${why}`
  const chars = Array.from(data.reply)
  const reply = chars.length > REPLY_SHOWN ? `${chars.slice(0, REPLY_SHOWN).join('')}…` : data.reply
  return `${head}: answered, allowed${by}: ${JSON.stringify(reply)}`
}
