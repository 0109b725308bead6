export * from './fork-session.js'
export * from './log/decision-rule.js'
export * from './log/derivation.js'
export * from './log/events.js'
export { type ForkPoint, forkOrigin } from './log/fork.js'
export { AppendOnlyList, type History } from './log/history.js'
export {
  effectRecordedText,
  type InterruptedCall,
  interruptedCalls,
  NOT_STARTED_TEXT,
  OUTCOME_UNKNOWN_TEXT,
  planRepair,
  repairCall,
} from './log/repair.js'
export { SeqList } from './log/seq-list.js'
export * from './log/step-preparation.js'
export * from './log/suspended-turn.js'
export * from './session.js'
export { fileReader } from './stores/file/file-reader.js'
export * from './stores/file/file-store.js'
export {
  DEFAULT_LEASE_MS,
  handleOpenError,
  isLeaseHeld,
  type LeaseOptions,
  leaseHeldError,
  leaseLostError,
} from './stores/lease.js'
export * from './stores/mcp-events.js'
export * from './stores/memory-store.js'
export { describeConnection, type PgPool } from './stores/postgres/postgres-driver.js'
export * from './stores/postgres/postgres-event-store.js'
export * from './stores/postgres/postgres-reader.js'
export { POSTGRES_CHANNEL } from './stores/postgres/postgres-schema.js'
export * from './stores/postgres/postgres-store.js'
export type { SessionReader } from './stores/session-reader.js'
export {
  defaultSqliteDriver,
  loadSqliteDriver,
  type SqliteConnection,
  type SqliteDriverName,
} from './stores/sqlite/sqlite-driver.js'
export * from './stores/sqlite/sqlite-event-store.js'
export * from './stores/sqlite/sqlite-reader.js'
export * from './stores/sqlite/sqlite-store.js'
export * from './stores/store.js'
