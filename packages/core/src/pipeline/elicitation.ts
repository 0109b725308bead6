/**
 * `run.elicit(form)` (P8.13–P8.19): a body asks the person a form of its own through the host's
 * elicitation handler given with the call, and gets back a checked answer; it never hangs and
 * never rejects but for a malformed form.
 */

import type { ElicitForm, ElicitReply, ElicitRequest } from '../contract/elicitation.js'
import { cancelled, checkedReply, formProblem } from '../contract/form-checks.js'
import { codedError, errorMessage } from '../foundation/errors.js'
import { frozenSnapshotOrThrow } from '../foundation/frozen.js'
import type { Call } from './call.js'

/** The reason of the `cancel` a call without an elicitation handler gets (P8.15). */
export const NO_ELICITOR =
  'no one can answer a form for this call: its host gave no elicitation handler (execute input "elicit")'

/** The reason of the `cancel` a call gets when it is aborted before or while its form is asked (P8.17). */
export const ELICIT_ABORTED = 'the call was aborted, so its form was not answered'

const ABORTED = Symbol('aborted')

/**
 * Asks `form` of the call's elicitation handler under `signal` (the attempt's) and resolves with
 * the checked answer (P8.13–P8.17). Rejects only when `form` is not lossless JSON
 * (`RESULT_NOT_SERIALIZABLE`) or not a form MCP allows (`UNSUPPORTED_SCHEMA`).
 */
export async function elicitForm(call: Call, signal: AbortSignal, form: unknown): Promise<ElicitReply> {
  const snap = frozenSnapshotOrThrow(form, {
    root: 'form',
    code: 'RESULT_NOT_SERIALIZABLE',
    unreadable: (message) => `elicit form could not be read: ${message}`,
    notLossless: (reason) => `elicit form is not lossless JSON: ${reason}`,
  })
  const problem = formProblem(snap)
  if (problem !== undefined) throw codedError('UNSUPPORTED_SCHEMA', `elicit: ${problem}`)
  const checked = snap as unknown as ElicitForm
  const elicitor = call.elicitor
  if (elicitor === undefined) return cancelled(NO_ELICITOR)
  if (signal.aborted) return cancelled(ELICIT_ABORTED)
  const { callId, rootCallId, name } = call.exec
  const request: ElicitRequest = Object.freeze({
    callId,
    rootCallId,
    name,
    message: checked.message,
    requestedSchema: checked.requestedSchema,
    signal,
  })
  let onAbort: (() => void) | undefined
  const abort = new Promise<typeof ABORTED>((resolve) => {
    onAbort = () => resolve(ABORTED)
    signal.addEventListener('abort', onAbort, { once: true })
  })
  try {
    // The handler may ignore the signal: the abort settles the question for the body anyway.
    const raw = await Promise.race([Promise.resolve().then(() => elicitor(request)), abort])
    return raw === ABORTED ? cancelled(ELICIT_ABORTED) : checkedReply(checked, raw)
  } catch (error) {
    return cancelled(`the host's elicitation handler failed: ${errorMessage(error)}`)
  } finally {
    signal.removeEventListener('abort', onAbort!)
  }
}
