/**
 * Forms of a tool body's own (Y1.31): `elicit(run, form)` asks the person at the MCP client of
 * the served call `run` belongs to, beside the approvals the pipeline asks (Y1.7).
 */
import type { ElicitRequestFormParams } from '@modelcontextprotocol/server'
import type { Execution } from '@tooltx/core'
import { CallRoutes } from './call-routes.js'

/** A form to fill: a message and the flat object schema of its fields (MCP form-mode elicitation). */
export interface ElicitForm {
  message: string
  requestedSchema: ElicitRequestFormParams['requestedSchema']
}

/**
 * The person's answer: `accept` with the values of the form, `decline`, or `cancel`, which is
 * also the answer when nobody could be asked or nobody answered in time.
 */
export type ElicitReply =
  | { action: 'accept'; content: Record<string, string | number | boolean | string[]> }
  | { action: 'decline' | 'cancel' }

/** Asks one form of a served call's client. */
export type FormAsker = (form: ElicitForm, signal: AbortSignal) => Promise<ElicitReply>

/** The askers of the calls every `mcpServer` of this process serves (call ids are unique). */
export const formAskers = new CallRoutes<FormAsker>()

/**
 * Asks the person at the MCP client of the call `run` (a tool body's run context, or a Code Mode
 * sub-call's) to fill `form`, and resolves with the answer (Y1.31). It resolves
 * `{ action: 'cancel' }` without asking anyone when the call is neither served by `mcpServer` to
 * a 2025 session whose client announced elicitation nor the run of a 2026-07-28 task whose
 * request declared elicitation (there the form is an input request of the task, Y6.23), and when
 * the request fails or times out (`approvalTimeoutMs`); it never rejects.
 */
export async function elicit(
  run: Pick<Execution, 'rootCallId' | 'signal'>,
  form: ElicitForm,
): Promise<ElicitReply> {
  const ask = formAskers.find(run.rootCallId)
  if (ask === undefined) return { action: 'cancel' }
  try {
    return await ask(form, run.signal)
  } catch {
    return { action: 'cancel' }
  }
}
