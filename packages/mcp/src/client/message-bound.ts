/**
 * The bound on one message a server sends, the same over every transport (Y2.13, Y2.18), and
 * the error that says a message broke it.
 */

/** The default bound on one message from a server, in bytes: 10 MB, the SDK's stdio default. */
export const DEFAULT_MAX_MESSAGE_BYTES = 10 * 1024 * 1024

/** A server sent a message larger than the connection's `maxMessageBytes` (Y2.18). */
export class MessageTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`the server sent a message of more than ${maxBytes} bytes (maxMessageBytes)`)
  }
}

/** The SDK's stdio transport says that a message broke its bound only in this message. */
const STDIO_TOO_LARGE = /^ReadBuffer exceeded maximum size of (\d+) bytes$/

/**
 * The {@link MessageTooLargeError} `error` stands for, over HTTP (our own) or stdio (the SDK's
 * read buffer overflowing); `undefined` for any other error.
 */
export function messageTooLarge(error: unknown): MessageTooLargeError | undefined {
  if (error instanceof MessageTooLargeError) return error
  const stdio = error instanceof Error ? STDIO_TOO_LARGE.exec(error.message) : null
  return stdio === null ? undefined : new MessageTooLargeError(Number(stdio[1]))
}
