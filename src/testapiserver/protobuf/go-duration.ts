// metav1.Duration's JSON form is Go's time.Duration text ("1h2m3.5s", "250ms");
// the wire carries nanoseconds as an int64. Both directions, as Go's
// Duration.String and time.ParseDuration, on bigint so no nanosecond is lost.

const NANOSECOND = 1n;
const MICROSECOND = 1000n * NANOSECOND;
const MILLISECOND = 1000n * MICROSECOND;
const SECOND = 1000n * MILLISECOND;
const MINUTE = 60n * SECOND;
const HOUR = 60n * MINUTE;

const UNITS: Record<string, bigint> = {
  ns: NANOSECOND,
  us: MICROSECOND,
  'µs': MICROSECOND, // U+00B5 micro sign
  'μs': MICROSECOND, // U+03BC Greek mu
  ms: MILLISECOND,
  s: SECOND,
  m: MINUTE,
  h: HOUR,
};

/** `whole` followed by `fraction` of `scale` (a power of ten), trailing zeros and a bare dot dropped. */
function withFraction(value: bigint, scale: bigint): string {
  const whole = value / scale;
  const fraction = value % scale;
  if (fraction === 0n) return String(whole);
  const digits = String(fraction).padStart(String(scale).length - 1, '0').replace(/0+$/, '');
  return `${whole}.${digits}`;
}

/** Go's Duration.String. */
export function formatGoDuration(nanoseconds: bigint): string {
  if (nanoseconds === 0n) return '0s';
  const sign = nanoseconds < 0n ? '-' : '';
  const u = nanoseconds < 0n ? -nanoseconds : nanoseconds;
  if (u < MICROSECOND) return `${sign}${u}ns`;
  if (u < MILLISECOND) return `${sign}${withFraction(u, MICROSECOND)}µs`;
  if (u < SECOND) return `${sign}${withFraction(u, MILLISECOND)}ms`;
  const hours = u / HOUR;
  const minutes = (u % HOUR) / MINUTE;
  const seconds = `${withFraction(u % MINUTE, SECOND)}s`;
  if (hours > 0n) return `${sign}${hours}h${minutes}m${seconds}`;
  if (minutes > 0n) return `${sign}${minutes}m${seconds}`;
  return `${sign}${seconds}`;
}

/** Go's time.ParseDuration; undefined for text it would refuse. */
export function parseGoDuration(text: string): bigint | undefined {
  let rest = text;
  let negative = false;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    negative = rest.startsWith('-');
    rest = rest.slice(1);
  }
  if (rest === '0') return 0n;
  if (rest === '') return undefined;
  let total = 0n;
  const term = /^(\d*)(?:\.(\d*))?([a-zµμ]+)/;
  while (rest.length > 0) {
    const match = term.exec(rest);
    if (!match || (match[1] === '' && !match[2])) return undefined;
    const unit = UNITS[match[3]];
    if (unit === undefined) return undefined;
    const fraction = match[2] ?? '';
    const scale = 10n ** BigInt(fraction.length);
    total += BigInt(match[1] || '0') * unit + (BigInt(fraction || '0') * unit) / scale;
    rest = rest.slice(match[0].length);
  }
  return negative ? -total : total;
}
