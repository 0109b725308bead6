import { definitionError } from '@tooltx/core/internal'
import type { TurnEndData, TurnLimit } from '@tooltx/session'

/** The bounds of one turn (L13.1); each is a positive integer or `Infinity` (no bound). */
export interface TurnBounds {
  /** Model requests (steps) per turn; default 100. */
  readonly maxSteps: number
  /** Tool calls started per turn; default 1000. */
  readonly maxToolCalls: number
  /** Wall-clock milliseconds per turn; default `Infinity`, since a turn may wait for a person. */
  readonly maxTurnMs: number
}

/** The defaults of `createAgent`'s bounds (L13.2). */
const DEFAULT_TURN_BOUNDS: TurnBounds = Object.freeze({
  maxSteps: 100,
  maxToolCalls: 1000,
  maxTurnMs: Number.POSITIVE_INFINITY,
})

const UNITS: Readonly<Record<TurnLimit, string>> = {
  maxSteps: 'steps',
  maxToolCalls: 'tool calls',
  maxTurnMs: 'ms',
}

/** The longest delay a timer takes (about 24.8 days); a longer one would fire at once. */
const MAX_TIMER_MS = 2_147_483_647

/**
 * Reads the bounds from `createAgent` options, filling in the defaults. Throws
 * `INVALID_DEFINITION` for a value that is neither a positive integer nor `Infinity`, and for a
 * `maxTurnMs` longer than a timer can wait (L13.2).
 */
export function resolveBounds(options: Partial<Record<TurnLimit, unknown>>): TurnBounds {
  const bounds: Record<TurnLimit, number> = { ...DEFAULT_TURN_BOUNDS }
  for (const key of Object.keys(UNITS) as TurnLimit[]) {
    const value = options[key]
    if (value === undefined) continue
    const ok = value === Number.POSITIVE_INFINITY || (Number.isInteger(value) && (value as number) >= 1)
    if (!ok) {
      throw definitionError(`${key} must be a positive integer or Infinity, got ${String(value)}`)
    }
    if (key === 'maxTurnMs' && (value as number) > MAX_TIMER_MS && value !== Number.POSITIVE_INFINITY) {
      throw definitionError(
        `maxTurnMs must be at most ${MAX_TIMER_MS} (about 24.8 days) or Infinity, got ${value}`,
      )
    }
    bounds[key] = value as number
  }
  return bounds
}

/** The `turn/end` of a turn that reached `limit` (L13.1). */
export function limitEnd(turn: number, limit: TurnLimit, bounds: TurnBounds): TurnEndData {
  return {
    turn,
    reason: 'limit',
    limit,
    message: `the turn reached ${limit} (${bounds[limit]} ${UNITS[limit]})`,
  }
}
