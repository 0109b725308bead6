/**
 * The string formats the enforced subset asserts (S3.9): `date-time` and `date` (RFC 3339),
 * `email` (an RFC 5322 dot-atom address with a dotted domain), `uri` (an absolute RFC 3986
 * URI) and `uuid` (RFC 9562 text form, any case). Each test is a total function of a string.
 */

/** The supported `format` names. */
export const FORMATS = ['date-time', 'date', 'email', 'uri', 'uuid'] as const

export type Format = (typeof FORMATS)[number]

/** True iff `value` names a supported format. */
export function isFormat(value: unknown): value is Format {
  return typeof value === 'string' && (FORMATS as readonly string[]).includes(value)
}

const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]

function isLeapYear(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)
}

/** The first three groups of a match, as the numbers their digits spell. */
function leadingNumbers(m: RegExpExecArray): [number, number, number] {
  return [Number(m[1]), Number(m[2]), Number(m[3])]
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/

function isDate(text: string): boolean {
  const m = DATE.exec(text)
  if (m === null) return false
  const [year, month, day] = leadingNumbers(m)
  if (month < 1 || month > 12 || day < 1) return false
  return day <= (month === 2 && isLeapYear(year) ? 29 : DAYS[month - 1]!)
}

const TIME = /^(\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(z|([+-])(\d{2}):(\d{2}))$/i

/** An RFC 3339 full-time; a leap second is only valid at 23:59:60 UTC. */
function isTime(text: string): boolean {
  const m = TIME.exec(text)
  if (m === null) return false
  const [hour, minute, second] = leadingNumbers(m)
  const offsetHour = m[5] === undefined ? 0 : Number(m[6])
  const offsetMinute = m[5] === undefined ? 0 : Number(m[7])
  if (hour > 23 || minute > 59 || second > 60 || offsetHour > 23 || offsetMinute > 59) return false
  if (second < 60) return true
  const sign = m[5] === '-' ? -1 : 1
  const utcMinutes = (((hour * 60 + minute - sign * (offsetHour * 60 + offsetMinute)) % 1440) + 1440) % 1440
  return utcMinutes === 23 * 60 + 59
}

function isDateTime(text: string): boolean {
  const t = text.search(/[tT ]/)
  return t !== -1 && isDate(text.slice(0, t)) && isTime(text.slice(t + 1))
}

const ATOM = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+"
const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?'
const EMAIL = new RegExp(`^${ATOM}(?:\\.${ATOM})*@(?:${LABEL}\\.)+${LABEL}$`)

/** A URI path, query or fragment character: unreserved, sub-delims, `:`, `@` or a percent escape. */
const PCHAR = "(?:[A-Za-z0-9\\-._~!$&'()*+,;=:@]|%[0-9A-Fa-f]{2})"

/**
 * An absolute URI (RFC 3986 without IP-literal hosts): a scheme, a non-empty rest (ajv-formats
 * also rejects `https:`), one optional `?query` and one optional `#fragment`.
 */
const URI = new RegExp(
  `^[A-Za-z][A-Za-z0-9+.-]*:(?=.)(?:${PCHAR}|/)*(?:\\?(?:${PCHAR}|[/?])*)?(?:#(?:${PCHAR}|[/?])*)?$`,
)

const UUID = /^(?:urn:uuid:)?[0-9a-f]{8}-(?:[0-9a-f]{4}-){3}[0-9a-f]{12}$/i

/** The test of each format. */
export const FORMAT_TESTS: Readonly<Record<Format, (text: string) => boolean>> = {
  'date-time': isDateTime,
  date: isDate,
  email: (text) => EMAIL.test(text),
  uri: (text) => URI.test(text),
  uuid: (text) => UUID.test(text),
}
