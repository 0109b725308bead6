/** The Tasks extension of the 2026-07-28 revision (Y6.22), as both sides name it. */
import type { Client } from '@modelcontextprotocol/client'

/** The extension's identifier, in `capabilities.extensions` of a server and of each request. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks'

/** True iff the server of `client` offers the extension (Y6.22, Y6.27). */
export const offersTaskExtension = (client: Client): boolean =>
  client.getServerCapabilities()?.extensions?.[TASKS_EXTENSION] !== undefined
