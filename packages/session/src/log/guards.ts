/** Plain-data guards shared by the log's checks and its checkpoint format. */

/** An object that is neither `null` nor an array. */
export type Data = Record<string, unknown>

export const isObject = (x: unknown): x is Data => typeof x === 'object' && x !== null && !Array.isArray(x)
/** A safe integer ≥ 1. */
export const isCount = (x: unknown): x is number => Number.isSafeInteger(x) && (x as number) >= 1
/** A safe integer ≥ 0. */
export const isCountOrZero = (x: unknown): x is number => Number.isSafeInteger(x) && (x as number) >= 0
/** A non-empty string. */
export const isId = (x: unknown): x is string => typeof x === 'string' && x !== ''
/** A list of non-empty strings. */
export const isIdList = (x: unknown): x is string[] => Array.isArray(x) && x.every(isId)
