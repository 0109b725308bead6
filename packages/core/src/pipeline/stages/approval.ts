/** Approval (P4): consulted once per `ask`; the decision is bound to the arguments by a digest. */
import { type ApprovalOutcome, askApprover } from '../../approval-outcome.js'
import type { ApprovalRequest } from '../../execution.js'
import type { JsonValue } from '../../lossless-json.js'
import type { ToolResult } from '../../result.js'
import type { Call } from '../call.js'
import {
  abortedBeforeDispatch,
  approvalCancelled,
  approvalUnavailable,
  noApprovalChannel,
  userRejected,
} from '../failures.js'

/** A piece of already-encoded JSON text on the serializer's work stack. */
class Text {
  constructor(readonly text: string) {}
}

/**
 * The canonical JSON of a lossless value (P4.9): object keys sorted by UTF-16 code unit,
 * no whitespace. Iterative, so deeply nested arguments cannot overflow the stack.
 */
export function canonicalJson(value: JsonValue): string {
  let out = ''
  const work: (JsonValue | Text)[] = [value]
  while (work.length > 0) {
    const item = work.pop()!
    if (item instanceof Text) {
      out += item.text
    } else if (item === null || typeof item !== 'object') {
      out += JSON.stringify(item)
    } else if (Array.isArray(item)) {
      work.push(new Text(']'))
      for (let i = item.length - 1; i >= 0; i--) {
        work.push(item[i]!)
        if (i > 0) work.push(new Text(','))
      }
      work.push(new Text('['))
    } else {
      const keys = Object.keys(item).sort()
      work.push(new Text('}'))
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i]!
        work.push(item[key]!)
        work.push(new Text(`${i > 0 ? ',' : ''}${JSON.stringify(key)}:`))
      }
      work.push(new Text('{'))
    }
  }
  return out
}

/** Lowercase hex SHA-256 of the canonical JSON of `args` (P4.9), via Web Crypto. */
export async function argumentsDigest(args: JsonValue): Promise<string> {
  const bytes = new TextEncoder().encode(canonicalJson(args))
  const digest = new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', bytes))
  let hex = ''
  for (const byte of digest) hex += byte.toString(16).padStart(2, '0')
  return hex
}

/** Resolves with the approver's answer, or with `undefined` as soon as `signal` aborts (P4.8). */
function untilAborted(
  signal: AbortSignal,
  answer: Promise<ApprovalOutcome>,
): Promise<ApprovalOutcome | undefined> {
  return new Promise((resolve) => {
    const onAbort = () => resolve(undefined)
    signal.addEventListener('abort', onAbort, { once: true })
    answer.then((outcome) => {
      signal.removeEventListener('abort', onAbort)
      resolve(outcome)
    })
  })
}

/**
 * Asks the call's approver (the input's, else the runtime's, P4.1) about an `ask` with
 * `reason`. Resolves `undefined` for `'allowed-once'` (P4.3), otherwise with the post-result:
 * `DENIED` for the refusals (P4.1, P4.4–P4.7) and `ABORTED_BEFORE_DISPATCH` when the caller
 * aborted before or while asking (P4.8).
 */
export async function approve(call: Call, reason: string | undefined): Promise<ToolResult | undefined> {
  call.enterApproval()
  const approver = call.approver ?? call.core.options.approver
  if (approver === undefined) return noApprovalChannel(call.name)
  const { exec } = call
  const digest = await argumentsDigest(exec.arguments!)
  if (call.signal.aborted) return abortedBeforeDispatch()
  const request: { -readonly [K in keyof ApprovalRequest]: ApprovalRequest[K] } = {
    callId: exec.callId,
    rootCallId: exec.rootCallId,
    name: exec.name,
    arguments: exec.arguments!,
    argumentsDigest: digest,
  } as ApprovalRequest
  if (reason !== undefined) request.reason = reason
  if (exec.scope !== undefined) request.scope = exec.scope
  request.signal = exec.signal
  const outcome = await untilAborted(call.signal, askApprover(approver, Object.freeze(request)))
  switch (outcome) {
    case undefined:
      return abortedBeforeDispatch()
    case 'allowed-once':
      return undefined
    case 'rejected':
      return userRejected(call.name)
    case 'cancelled':
      return approvalCancelled(call.name)
    default:
      return approvalUnavailable(call.name)
  }
}
