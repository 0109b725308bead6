/**
 * The pipeline of one `runtime.execute` call, top to bottom as docs/architecture.md ("The route
 * of one tool call") follows it: `enter` → `decide` (pre-execute, approval, guards) → `dispatch`
 * (around chain, body, output boundaries) → `postProcess` (post-results only) → `finish`
 * (cancellation, materialize, finalize, content cap, observers).
 */
import type { ToolResult } from '../contract/result.js'
import { type Call, final, type Outcome, post } from './call.js'
import { abortedBeforeDispatch, deniedByPolicy } from './failures.js'
import type { RuntimeCore } from './runtime-core.js'
import { approve } from './stages/approval.js'
import { dispatch } from './stages/dispatch.js'
import { enter } from './stages/entry.js'
import { finish } from './stages/finish.js'
import { runGuards } from './stages/guards.js'
import { hasPostExecute, postProcess } from './stages/post-execute.js'
import { hasPreExecute, preExecute } from './stages/pre-execute.js'

/**
 * Runs one call and resolves with its one deep-frozen result (P2.1). Rejects only with
 * `INVARIANT`: for a malformed input (I1.2) or a broken invariant (V1.1).
 */
export async function execute(core: RuntimeCore, input: unknown): Promise<ToolResult> {
  const { call, early } = enter(core, input)
  const { place } = call
  try {
    let outcome = early === undefined ? undefined : final(early)
    if (outcome === undefined) {
      const decided = place === undefined ? decide(call) : place.decide.run(() => decideInOrder(call))
      // Awaited only when asynchronous: a call without policy hooks saves two microtask turns,
      // more than 5% of a no-hook call (bench/pipeline.bench.ts, Pipeline hot-path mechanisms).
      outcome = (decided instanceof Promise ? await decided : decided) ?? (await dispatch(call))
    }
    const { result } = outcome
    const processed = outcome.final
      ? result
      : place === undefined
        ? postProcess(call, result)
        : place.post.run(() => postProcess(call, result), hasPostExecute(call))
    return finish(call, processed instanceof Promise ? await processed : processed)
  } finally {
    // A call that skipped a phase, or failed in it, still lets the next call of its sequence go.
    place?.decide.done()
    place?.post.done()
    core.live.delete(call.exec.token)
  }
}

/**
 * The decision of a call in a sequence, once the call before it has decided (P1.9): a caller that aborted
 * while the call waited skips the decision (C1.3).
 */
function decideInOrder(call: Call): Outcome | undefined | Promise<Outcome | undefined> {
  return call.signal.aborted ? post(abortedBeforeDispatch()) : decide(call)
}

/**
 * Pre-execute, approval and guards (P3–P5): `undefined` when the call may be dispatched,
 * or the outcome that ends the decision. Synchronous when no pre-execute handler covers
 * the call, so a call without policy hooks waits for nothing here.
 */
function decide(call: Call): Outcome | undefined | Promise<Outcome | undefined> {
  return hasPreExecute(call) ? decideWithPolicy(call) : allow(call)
}

/** Runs the pre-execute chain and, for an ask, the approver. */
async function decideWithPolicy(call: Call): Promise<Outcome | undefined> {
  const verdict = await preExecute(call)
  switch (verdict.kind) {
    case 'failed':
      return final(verdict.result)
    case 'deny':
      return post(deniedByPolicy(call.name, verdict.reason))
    case 'ask': {
      call.asked = true
      const refusal = await approve(call, verdict.reason)
      if (refusal !== undefined) return post(refusal)
    }
  }
  return allow(call)
}

/** The decision is allow: check the caller's signal (C1.2, P3.8), then run the guards. */
function allow(call: Call): Outcome | undefined {
  call.allowed = true
  if (call.signal.aborted) return post(abortedBeforeDispatch())
  return runGuards(call)
}
