import { DEFAULT_SQLITE_PATH } from '@tooltx/session'

/** `value` as one shell word: as is when it is plain, else in single quotes. */
function shellWord(value: string): string {
  return /^[A-Za-z0-9_./:@%+=-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`
}

/** The command that replays session `id` of database `db`, with `--db` unless it is the default. */
export function replayHint(id: string, db: string): string {
  return `npx tooltx replay ${shellWord(id)}${db === DEFAULT_SQLITE_PATH ? '' : ` --db ${shellWord(db)}`}`
}
