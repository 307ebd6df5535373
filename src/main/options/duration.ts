// Go duration strings (time.ParseDuration), the form metav1.Duration takes in a
// KubeletConfiguration file and on the kubelet's duration flags: "1m30s", "20s",
// "100ms", "1.5h", "0". Values are kept in milliseconds on our side.

const MS_PER_UNIT: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  'µs': 1e-3, // U+00B5 micro sign, as Go accepts
  'μs': 1e-3, // U+03BC Greek mu, as Go accepts
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
};

const SEGMENT = /(\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h)/y;

/** Parses a Go duration string into milliseconds; returns undefined when it is not one. */
export function parseGoDuration(text: string): number | undefined {
  let rest = text.trim();
  let sign = 1;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    if (rest.startsWith('-')) sign = -1;
    rest = rest.slice(1);
  }
  // Go accepts a bare "0" (and only zero) without a unit.
  if (rest === '0') return 0;
  if (rest === '') return undefined;
  let totalMs = 0;
  SEGMENT.lastIndex = 0;
  while (SEGMENT.lastIndex < rest.length) {
    const match = SEGMENT.exec(rest);
    if (!match) return undefined;
    totalMs += Number(match[1]) * MS_PER_UNIT[match[2]!]!;
  }
  return sign * totalMs;
}

/** Formats milliseconds the way Go prints a time.Duration ("2m0s", "20s", "100ms"). */
export function formatGoDuration(ms: number): string {
  if (ms === 0) return '0s';
  const sign = ms < 0 ? '-' : '';
  let rest = Math.abs(ms);
  if (rest < 1_000) return `${sign}${trimNumber(rest)}ms`;
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = `${trimNumber(rest / 1_000)}s`;
  if (hours > 0) return `${sign}${hours}h${minutes}m${seconds}`;
  if (minutes > 0) return `${sign}${minutes}m${seconds}`;
  return `${sign}${seconds}`;
}

function trimNumber(value: number): string {
  return String(Number(value.toFixed(6)));
}
