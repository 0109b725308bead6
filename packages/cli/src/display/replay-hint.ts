import { DEFAULT_DB } from './default-db.js'

/** `value` as one shell word: as is when it is plain, else in single quotes. */
function shellWord(value: string): string {
  return /^[A-Za-z0-9_./:@%+=-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`
}

/** ` --db <db>`, or nothing for the default database. */
function dbFlag(db: string): string {
  return db === DEFAULT_DB ? '' : ` --db ${shellWord(db)}`
}

/** `npx tooltx <command> <id>`, with `--db` unless `db` is the default. */
function hint(command: string, id: string, db: string): string {
  return `npx tooltx ${command} ${shellWord(id)}${dbFlag(db)}`
}

/** The command that replays session `id` of database `db`, with `--db` unless it is the default. */
export function replayHint(id: string, db: string): string {
  return hint('replay', id, db)
}

/** The command that opens session `id` of database `db` in the viewer (G2.4). */
export function viewHint(id: string, db: string): string {
  return hint('view', id, db)
}

/** The command that continues session `id` of database `db` with a new task (A2.2). */
export function continueHint(id: string, db: string): string {
  return `npx tooltx run --session ${shellWord(id)}${dbFlag(db)} "<task>"`
}

/** The command that approves call `callId` of session `id` in database `db` (K5.3). */
export function approveHint(id: string, callId: string, db: string): string {
  return `npx tooltx approve ${shellWord(id)} ${shellWord(callId)}${dbFlag(db)}`
}

/** The command that resumes durable demo session `id` of database `db` (K5.4). */
export function demoResumeHint(id: string, db: string): string {
  return `npx tooltx demo --resume ${shellWord(id)}${dbFlag(db)}`
}

/** The command that resumes the suspended turn of `run` session `id` of database `db` (K5.10). */
export function runResumeHint(id: string, db: string): string {
  return `npx tooltx run --session ${shellWord(id)} --approvals durable${dbFlag(db)}`
}

/** The command that lists every waiting durable approval of database `db` (K5.2). */
export function approvalsHint(db: string): string {
  return `npx tooltx approvals${dbFlag(db)}`
}

/**
 * How the suspended turn of session `id` of database `db` is finished once decided (K5.3,
 * K5.12): `demo --resume` for a demo session, `run --session … --approvals durable` for a `run`
 * session, else the next job a worker takes for it (F2.12).
 */
export function suspendedResumeHint(id: string, db: string): string {
  if (id.startsWith('demo-')) return demoResumeHint(id, db)
  if (id.startsWith('run-')) return runResumeHint(id, db)
  return `the next job a worker takes for it (npx tooltx submit ${shellWord(id)} "<message>" --db …)`
}
