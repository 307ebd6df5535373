// metav1.Time and metav1.MicroTime between their wire form (Unix seconds and
// nanoseconds) and their JSON form: RFC 3339 in UTC, whole seconds for Time
// (Time.MarshalJSON), six fractional digits for MicroTime (RFC3339Micro). Go
// refuses to write a year outside 0–9999 as JSON, and so does this.

const NANOS_PER_SECOND = 1_000_000_000;
const NANOS_PER_MICRO = 1000;
const MS_PER_SECOND = 1000;
const MAX_JSON_YEAR = 9999;

/** Go's time.RFC3339 layout as time.Parse reads it: any fraction, Z or a numeric offset. */
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/;

export interface UnixTime {
  seconds: number;
  nanos: number;
}

/** Parses an RFC 3339 time; undefined when the text is not one (the caller names the field). */
export function parseRfc3339(text: string): UnixTime | undefined {
  const match = RFC3339.exec(text);
  if (!match) return undefined;
  const [, year, month, day, hour, minute, second, fraction, zone] = match;
  const [monthNumber, dayNumber, hourNumber, minuteNumber, secondNumber] = [month, day, hour, minute, second].map(Number);
  if (monthNumber < 1 || monthNumber > 12 || dayNumber < 1 || dayNumber > 31 || hourNumber > 23 || minuteNumber > 59 || secondNumber > 59) return undefined;
  const date = new Date(0);
  // setUTCFullYear, not Date.UTC, which reads years 0–99 as 1900–1999.
  date.setUTCFullYear(Number(year), monthNumber - 1, dayNumber);
  if (date.getUTCDate() !== dayNumber) return undefined; // 31 April rolled over into May
  date.setUTCHours(hourNumber, minuteNumber, secondNumber, 0);
  let seconds = date.getTime() / MS_PER_SECOND;
  if (zone !== 'Z') {
    const sign = zone.startsWith('-') ? -1 : 1;
    const [offsetHours, offsetMinutes] = zone.slice(1).split(':').map(Number);
    seconds -= sign * (offsetHours * 3600 + offsetMinutes * 60);
  }
  const nanos = fraction ? Number(fraction.padEnd(9, '0')) : 0;
  return { seconds, nanos };
}

function formatUtc(seconds: number, fractionDigits: string): string {
  const date = new Date(seconds * MS_PER_SECOND);
  const year = date.getUTCFullYear();
  if (!Number.isFinite(date.getTime()) || year < 0 || year > MAX_JSON_YEAR) throw new RangeError('year outside of range [0,9999]');
  const pad = (n: number, width = 2): string => String(n).padStart(width, '0');
  const clock = `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}`;
  return `${pad(year, 4)}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}T${clock}${fractionDigits}Z`;
}

/** metav1.Time's JSON: whole seconds, as Go reads only seconds from the wire. */
export function formatTime(time: UnixTime): string {
  return formatUtc(time.seconds, '');
}

/** metav1.MicroTime's JSON: always six fractional digits, the nanoseconds truncated. */
export function formatMicroTime(time: UnixTime): string {
  const micros = Math.floor(time.nanos / NANOS_PER_MICRO);
  return formatUtc(time.seconds, `.${String(micros).padStart(6, '0')}`);
}

/** Whether a nanos value is one Go's Timestamp can hold. */
export function validNanos(nanos: number): boolean {
  return Number.isInteger(nanos) && nanos >= 0 && nanos < NANOS_PER_SECOND;
}
