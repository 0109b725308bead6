export * from './decision-rule.js'
export * from './derivation.js'
export * from './events.js'
export { fileReader } from './file-reader.js'
export * from './file-store.js'
export * from './fork.js'
export { AppendOnlyList, type History } from './history.js'
export {
  DEFAULT_LEASE_MS,
  handleOpenError,
  isLeaseHeld,
  type LeaseOptions,
  leaseHeldError,
  leaseLostError,
} from './lease.js'
export * from './memory-store.js'
export { describeConnection, type PgPool } from './postgres-driver.js'
export * from './postgres-event-store.js'
export * from './postgres-reader.js'
export { POSTGRES_CHANNEL } from './postgres-schema.js'
export * from './postgres-store.js'
export {
  effectRecordedText,
  type InterruptedCall,
  interruptedCalls,
  NOT_STARTED_TEXT,
  OUTCOME_UNKNOWN_TEXT,
  planRepair,
  repairCall,
} from './repair.js'
export { SeqList } from './seq-list.js'
export * from './session.js'
export { defaultSqliteDriver, loadSqliteDriver, type SqliteDriverName } from './sqlite-driver.js'
export * from './sqlite-reader.js'
export * from './sqlite-store.js'
export * from './step-preparation.js'
export * from './store.js'
export * from './suspended-turn.js'
