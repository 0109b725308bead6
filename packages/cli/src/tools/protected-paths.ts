/**
 * The one rule for secrets in a workspace: a path is protected when any of its segments starts
 * with `.env` (in any case), so `.env`, `config/.env.local` and everything under a `.env/`
 * folder are. Every workspace tool and the CLI's guard ask this function and nothing else.
 * Lexical only: callers also ask it about the real path a symlink leads to.
 */
export function isProtectedPath(relative: string): boolean {
  return relative.split(/[\\/]/).some((segment) => segment.toLowerCase().startsWith('.env'))
}
