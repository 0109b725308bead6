import { SERVER_REQUEST_NAMES } from '@tooltx/agent'
import { type Approver, callCard } from '@tooltx/core'
import { argumentLines } from './display/approval-arguments.js'
import { callTitle } from './display/card-text.js'
import type { Output } from './display/output.js'
import type { DefinitionLookup } from './display/session-display.js'
import { wrapLine } from './display/wrap.js'
import { askSampling } from './mcp-prompts.js'

/** How the CLI answers approval requests. */
export interface ApprovalOptions {
  out: Output
  /** The definitions the call cards come from. */
  lookup: DefinitionLookup
  /** `--yes`: approve every request without asking. */
  yes: boolean
  /**
   * What happens when no one can be asked (stdin or stdout is not a terminal): `'allow'`
   * answers yes (the demo, which says so up front), `'refuse'` answers `unavailable` and says
   * on stderr that no one could be asked and how to allow.
   */
  unattended: 'allow' | 'refuse'
  /** Ctrl-C at the prompt: stops the whole run. */
  onInterrupt: () => void
}

/** What typed at the prompt shows the whole arguments (K2.9). */
const SHOW_ALL = /^\s*a(ll)?\s*$/i

/**
 * The CLI's approver. A server's request for a completion goes to `askSampling` (Y4.10, Y4.11),
 * whatever `yes` says. With `yes` it allows every other request at once. At a terminal it shows the call's card and
 * its arguments (`argumentLines`: whole, or the start and the end with the digest when they are
 * long) and asks `Allow <tool>? [y/N]`: `y` or `yes` allows once, `a` or `all` prints the
 * arguments whole and asks again, any other answer rejects, and Ctrl-C calls `onInterrupt`
 * (the call then ends as aborted with the run). Without a terminal it answers as `unattended`
 * says.
 */
export function cliApprover(options: ApprovalOptions): Approver {
  const { out } = options
  return async (request) => {
    // A server's request for a completion is put to the person: --yes approves tool calls only (Y4.11).
    if (request.name === SERVER_REQUEST_NAMES.sampling) return askSampling(out, request, options.onInterrupt)
    if (options.yes) return 'allowed-once'
    const prompt = out.prompt
    if (prompt === undefined) {
      if (options.unattended === 'allow') return 'allowed-once'
      out.error(
        `tooltx: ${request.name} needs approval, but no one could be asked (stdin or stdout is not a terminal), ` +
          'so it was refused. To allow it, run at a terminal and answer the prompt, or pass --yes to approve every write.',
      )
      return 'unavailable'
    }
    const raw = JSON.stringify(request.arguments) ?? ''
    const view = callCard(options.lookup(request.name), request.name, raw)
    const print = (lines: readonly string[]) => {
      for (const line of lines) for (const part of wrapLine(line, out.columns, '    │   ')) out.line(part)
    }
    // The call's card (its diff, its command) is on the timeline just above: the box names the
    // call and shows the arguments, never the card's body again (K2.29).
    print([`    ┌ ${callTitle(view)}`])
    const shown = argumentLines(raw, { digest: request.argumentsDigest, whole: 'answer "a" below' })
    print(shown.map((line) => `    │ ${line}`))
    const choices = shown.length > 1 ? '[y/N, a = show all arguments]' : '[y/N]'
    for (;;) {
      const answer = await prompt.ask(`    └ Allow ${request.name}? ${choices} `, request.signal)
      if (answer === undefined) {
        options.onInterrupt()
        return 'cancelled'
      }
      if (!SHOW_ALL.test(answer) || shown.length === 1) {
        return /^\s*y(es)?\s*$/i.test(answer) ? 'allowed-once' : 'rejected'
      }
      print(argumentLines(raw, { digest: request.argumentsDigest }).map((line) => `    │ ${line}`))
    }
  }
}
