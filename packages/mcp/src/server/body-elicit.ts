/**
 * Forms of a tool body's own (Y1.31, Y1.35): the elicitation handler a served call is given, so
 * its `run.elicit(form)` (P8.13) asks the person at the MCP client of that call, beside the
 * approvals the pipeline asks (Y1.7).
 */
import type { ClientCapabilities, ElicitRequestFormParams, ServerContext } from '@modelcontextprotocol/server'
import type { ElicitForm, Elicitor, ElicitReply, RunContext } from '@tooltx/core'

export type { ElicitForm, ElicitReply } from '@tooltx/core'

/** Why a 2026-07-28 request's body cannot ask (Y1.35): the revision has no server-to-client requests. */
export const MODERN_NO_FORMS =
  'the MCP client of this call cannot be asked a form: a 2026-07-28 request has no server-to-client requests'

/** Why the body of a 2025 session whose client lacks elicitation cannot ask (Y1.35). */
export const CLIENT_NO_FORMS =
  'the MCP client of this call did not announce elicitation, so it cannot be asked a form'

/**
 * The elicitation handler of one served call (Y1.35): for a 2025 session whose client announced
 * elicitation (`client`, its capabilities), `elicitation/create` in form mode on the call's request,
 * waiting at most `timeoutMs`, aborted with the call; otherwise a `cancel` saying why.
 */
export function clientElicitor(
  ctx: ServerContext,
  client: ClientCapabilities | undefined,
  timeoutMs: number,
): Elicitor {
  if (client === undefined) return () => ({ action: 'cancel', reason: MODERN_NO_FORMS })
  if (client.elicitation === undefined) return () => ({ action: 'cancel', reason: CLIENT_NO_FORMS })
  return async ({ message, requestedSchema, signal }) => {
    // Core checked the form against MCP's field kinds (P8.13); its types only group them differently.
    const schema = requestedSchema as ElicitRequestFormParams['requestedSchema']
    const params: ElicitRequestFormParams = { mode: 'form', message, requestedSchema: schema }
    return (await ctx.mcpReq.elicitInput(params, { signal, timeout: timeoutMs })) as ElicitReply
  }
}

/**
 * Asks the person to fill `form`: `run.elicit(form)` (P8.13), which a served call's client answers
 * (Y1.35). Kept for bodies written against the first release (Y1.31).
 *
 * @deprecated Call `run.elicit(form)` on the run context instead.
 */
export function elicit(run: Pick<RunContext, 'elicit'>, form: ElicitForm): Promise<ElicitReply> {
  return run.elicit(form)
}
