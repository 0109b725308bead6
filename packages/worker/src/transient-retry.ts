/** PostgreSQL errors another worker's concurrent work can cause and a retry clears: a deadlock, a serialization failure. */
const TRANSIENT = new Set(['40P01', '40001'])

/**
 * Runs `step`, and again (up to five tries, 50–400 ms apart) while it fails with a transient
 * PostgreSQL error (N2.9): a worker starting while others run the queue's maintenance can be
 * chosen as a deadlock's victim, and its idempotent queue set-up then simply runs again.
 */
export async function retryTransient<T>(step: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await step()
    } catch (error) {
      const code = (error as { code?: unknown } | null)?.code
      if (attempt >= 5 || typeof code !== 'string' || !TRANSIENT.has(code)) throw error
      await new Promise((resolve) => setTimeout(resolve, 50 * 2 ** (attempt - 1)))
    }
  }
}
