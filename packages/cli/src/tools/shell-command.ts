import type { Guard } from '@tooltx/core'

/**
 * What the CLI reads in a `shell` command before it runs: whether an allow-list rule lets it
 * run without asking (K2.19), and the words the boundary guard judges as paths (K1.9).
 */

/** Characters that chain, substitute, redirect or glob in `sh`: a command holding one is never allow-listed. */
const SHELL_SYNTAX = /[;&|`$()<>\n\r\\*?[\]{}~#!"']/

/**
 * True when `rules` (`--allow-shell` values) let `command` run without asking: the command,
 * trimmed, is a rule or a rule followed by a space and plain arguments, and holds no shell
 * syntax (chaining, substitution, redirection, quoting, globs), so `npm test` allows
 * `npm test -- --run` but never `npm test; rm -rf ~` or `npm test $(curl …)`. Total.
 */
export function allowedCommand(command: string, rules: readonly string[]): boolean {
  // A line break anywhere, even at the end, is a second command to `sh`.
  if (SHELL_SYNTAX.test(command)) return false
  const trimmed = command.trim()
  return rules.some((rule) => {
    const prefix = rule.trim()
    return prefix !== '' && (trimmed === prefix || trimmed.startsWith(`${prefix} `))
  })
}

/** Paths a command may name that lie outside the workspace but reach nothing of the person's. */
const HARMLESS = new Set(['/dev/null', '/dev/stdin', '/dev/stdout', '/dev/stderr', '/dev/tty'])

/**
 * The words of `command` as `sh` would split them, roughly: split at blanks and at the operators
 * `; & | < > ( )` and backquotes, with quotes removed, and the value of each `name=value` or
 * `--flag=value` word as a word of its own, leaving out the harmless device paths. The boundary guard reads each as a
 * path, so `cat .env`, `ls ../other` and `cp x /tmp/y` are denied before anyone is asked. It is
 * a reading, not a shell: a command can still compute a path (K1.9 says what it covers). Total.
 */
export function commandWords(command: string): string[] {
  const words: string[] = []
  for (const raw of command.split(/[\s;&|<>()`]+/)) {
    const word = raw.replace(/["']/g, '')
    if (word === '') continue
    const value = /^[^=]+=(.*)$/.exec(word)?.[1]
    for (const part of value === undefined ? [word] : [word, value]) {
      if (part !== '' && !HARMLESS.has(part)) words.push(part)
    }
  }
  return words
}

/**
 * The boundary guard for `shell` commands (K1.9): `boundary` (the CLI's `pathBoundaryGuard`)
 * judges the command's words (`commandWords`) as if each were an argument, so a command naming
 * a secret or a path outside the workspace is denied with the guard's own words. Other tools'
 * calls it leaves to `boundary` itself.
 */
export function shellWordsGuard(boundary: Guard): Guard {
  return (exec) => {
    const args = exec.arguments
    if (exec.name !== 'shell' || typeof args !== 'object' || args === null || Array.isArray(args))
      return undefined
    const command = args.command
    return typeof command === 'string' ? boundary({ ...exec, arguments: commandWords(command) }) : undefined
  }
}
