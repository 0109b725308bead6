import { sqliteStore } from '@tooltx/session'
import type { Output } from '../output.js'

/** Lists the sessions stored in the database, oldest first. */
export async function sessionsCommand(options: { db: string }, out: Output): Promise<void> {
  const store = sqliteStore(options.db)
  try {
    const sessions = await store.listSessions()
    if (sessions.length === 0) {
      out.line(`no sessions in ${options.db} yet; run \`tooltx demo\` to make one`)
      return
    }
    out.line(`${'id'.padEnd(40)} ${'events'.padStart(6)}  updated`)
    for (const info of sessions)
      out.line(`${info.id.padEnd(40)} ${String(info.events).padStart(6)}  ${info.updated}`)
  } finally {
    await store.close()
  }
}
