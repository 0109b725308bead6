/**
 * Completions a tool body asks of the client's model (Y1.33): `sample(run, request)` sends
 * `sampling/createMessage` to the MCP client of the served call `run` belongs to.
 */
import type {
  CreateMessageRequest,
  CreateMessageResult,
  CreateMessageResultWithTools,
} from '@modelcontextprotocol/server'
import type { Execution } from '@tooltx/core'
import { CallRoutes } from './call-routes.js'

/** What a body asks: the MCP `sampling/createMessage` parameters (messages, maxTokens, …). */
export type SampleRequest = CreateMessageRequest['params']

/** Asks one completion of a served call's client. */
export type Sampler = (
  request: SampleRequest,
  signal: AbortSignal,
) => Promise<CreateMessageResult | CreateMessageResultWithTools>

/** The samplers of the calls every `mcpServer` of this process serves (call ids are unique). */
export const samplers = new CallRoutes<Sampler>()

/**
 * Asks the client of the served call `run` belongs to for one completion and resolves with its
 * answer (`{ model, role, content, stopReason? }`) (Y1.33). Rejects, saying why, when the call is
 * neither served by `mcpServer` to a 2025 session whose client announced sampling nor the run of
 * a 2026-07-28 task whose request declared sampling (there the request is an input request of
 * the task, Y6.29), and with the client's error when it refuses; the body decides what a
 * refusal means.
 */
export async function sample(run: Pick<Execution, 'rootCallId' | 'signal'>, request: SampleRequest) {
  const ask = samplers.find(run.rootCallId)
  if (ask === undefined)
    throw new Error(
      'sample: no MCP client can answer: the call is not served by mcpServer to a client that announced sampling',
    )
  return ask(request, run.signal)
}
