/** The Tasks extension of the 2026-07-28 revision (Y6.22), as both sides name it. */

/** The extension's identifier, in `capabilities.extensions` of a server and of each request. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks'
