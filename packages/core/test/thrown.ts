/**
 * What a call threw, for the tests of the caller's-mistake paths: each fails the test when the
 * call throws (or rejects with) nothing, or something other than a `ToolError`.
 */
import { ToolError, type ToolErrorCode } from '@tooltx/core'
import { expect } from 'vitest'

/** The `ToolError` that `fn` throws, checked to carry `code` when one is given. */
export function thrownToolError(fn: () => unknown, code?: ToolErrorCode): ToolError {
  try {
    fn()
  } catch (error) {
    expect(error).toBeInstanceOf(ToolError)
    if (code !== undefined) expect((error as ToolError).code).toBe(code)
    return error as ToolError
  }
  throw new Error(`expected a throw${code === undefined ? '' : ` of ${code}`}`)
}

/** What `promise` rejects with (anything). */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise
  } catch (error) {
    return error
  }
  throw new Error('expected a rejection')
}

/** The `ToolError` that `promise` rejects with. */
export async function toolRejection(promise: Promise<unknown>): Promise<ToolError> {
  const error = await rejectionOf(promise)
  expect(error).toBeInstanceOf(ToolError)
  return error as ToolError
}
