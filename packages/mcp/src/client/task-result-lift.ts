/**
 * The SDK 2.4 client does not decode the Tasks extension's task creation (`resultType: 'task'`,
 * Y6.27): it rejects the answer and keeps only its result type. This lifts such an answer, as it
 * arrives from the transport, into `{ resultType: 'complete', content: [], task: { … } }`, the
 * shape of a 2025 task creation, which the SDK hands on whole and the task call reads. The
 * extension reserves `'task'` for task creations, so no other answer is touched.
 */
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client'

/** `message` with a task creation lifted; any other message as it is. */
export function liftTaskCreation(message: JSONRPCMessage): JSONRPCMessage {
  const result = (message as { result?: unknown }).result
  if (
    result === null ||
    typeof result !== 'object' ||
    (result as { resultType?: unknown }).resultType !== 'task'
  )
    return message
  const { resultType: _type, _meta, ...task } = result as Record<string, unknown>
  return {
    ...message,
    result: { resultType: 'complete', content: [], task, ...(_meta === undefined ? {} : { _meta }) },
  } as JSONRPCMessage
}

/** `transport`, whose messages reach the handler the SDK sets with task creations lifted. */
export function liftTaskResults<T extends Transport>(transport: T): T {
  let handler: Transport['onmessage']
  Object.defineProperty(transport, 'onmessage', {
    configurable: true,
    enumerable: true,
    get: () => handler,
    set: (next: Transport['onmessage']) => {
      handler = next === undefined ? undefined : (message, extra) => next(liftTaskCreation(message), extra)
    },
  })
  return transport
}
