import { type Approver, callCard } from '@tooltx/core'
import { callBody, callTitle } from './card-text.js'
import type { Output } from './output.js'
import type { DefinitionLookup } from './session-display.js'
import { wrapLine } from './wrap.js'

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

const MAX_ARGUMENT_CHARS = 400

/**
 * The CLI's approver. With `yes` it allows at once. At a terminal it shows the call's card and
 * arguments and asks `Allow <tool>? [y/N]`: `y` or `yes` allows once, any other answer rejects,
 * and Ctrl-C calls `onInterrupt` (the call then ends as aborted with the run). Without a
 * terminal it answers as `unattended` says.
 */
export function cliApprover(options: ApprovalOptions): Approver {
  const { out } = options
  return async (request) => {
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
    const chars = [...raw]
    const shown =
      chars.length > MAX_ARGUMENT_CHARS ? `${chars.slice(0, MAX_ARGUMENT_CHARS - 1).join('')}…` : raw
    for (const line of [`    ┌ ${callTitle(view)}`, ...callBody(view).map((text) => `    │ ${text}`)]) {
      for (const part of wrapLine(line, out.columns, '    │   ')) out.line(part)
    }
    // A generic card already shows the raw arguments as its body.
    if (view.card !== 'generic' || view.rawInput === undefined) {
      for (const part of wrapLine(`    │ arguments: ${shown}`, out.columns, '    │   ')) out.line(part)
    }
    const answer = await prompt.ask(`    └ Allow ${request.name}? [y/N] `, request.signal)
    if (answer === undefined) {
      options.onInterrupt()
      return 'cancelled'
    }
    return /^\s*y(es)?\s*$/i.test(answer) ? 'allowed-once' : 'rejected'
  }
}
