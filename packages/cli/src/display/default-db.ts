import { DEFAULT_SQLITE_PATH, defaultSqliteDriver } from '@tooltx/session'

/** The JSONL file store folder the CLI keeps sessions in where Node has no `node:sqlite` (K3.21). */
export const DEFAULT_JSONL_PATH = '.tooltx/sessions/'

/**
 * The session store of a command given no `--db`: the SQLite file `.tooltx/sessions.db` where
 * Node has `node:sqlite` without a flag (Node >= 22.13), else the JSONL folder `.tooltx/sessions/`,
 * so the CLI never needs a native module (K3.21). Kept with the display layer because the replay
 * hints and every command's help name it.
 */
export const DEFAULT_DB: string =
  defaultSqliteDriver() === 'node:sqlite' ? DEFAULT_SQLITE_PATH : DEFAULT_JSONL_PATH
