// The CRI container log format, as runtimes write it and upstream's
// pkg/kubelet/kuberuntime/logs reads it: one record per line,
//   <RFC3339Nano time> <stdout|stderr> <tags> <content>
// where the first tag is F (a full line: the content ends the line) or P (a
// partial line: the runtime split a long line, the next record continues it).
// Lines come from containers: untrusted, any bytes, any length. Nothing here
// throws on bad input; a record that does not parse is reported as undefined
// and skipped by the reader, as upstream skips it.

export type LogStream = 'stdout' | 'stderr';

export interface CriLogRecord {
  /** Nanoseconds since the epoch (bigint: a nanosecond epoch does not fit a double). */
  timeNs: bigint;
  /** The time as upstream prints it with `timestamps=true`: nine fraction digits, the record's own offset. */
  timestamp: string;
  stream: LogStream;
  /** True for a P record: its content continues in the next record. */
  partial: boolean;
  /** The content bytes, with the line's newline kept for F records and dropped for P records. */
  content: Buffer;
}

const SPACE = 0x20;
const NEWLINE = 0x0a;
/** RFC3339 with an optional fraction of up to nine digits, and Z or ±hh:mm. */
const RFC3339_NANO = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/;
const NS_PER_MS = 1_000_000n;

/** Nanoseconds since the epoch of an RFC3339Nano time, or undefined when it is not one. */
export function parseRfc3339NanoNs(text: string): bigint | undefined {
  const match = RFC3339_NANO.exec(text);
  if (!match) return undefined;
  const [, year, month, day, hour, minute, second, fraction = '', offset] = match;
  const wholeSecondsMs = Date.parse(`${year}-${month}-${day}T${hour}:${minute}:${second}${offset}`);
  if (Number.isNaN(wholeSecondsMs)) return undefined;
  return BigInt(wholeSecondsMs) * NS_PER_MS + BigInt(fraction.padEnd(9, '0'));
}

/**
 * upstream's output of a record's time (Go's Format with RFC3339NanoFixed): always
 * nine fraction digits and the record's own offset, except that a zero offset is
 * `Z` however the runtime wrote it (Go's `Z07:00` prints Z for any UTC offset), so
 * CRI-O's `+00:00` records read out as containerd's `Z` ones do.
 */
function fixedNanoTimestamp(text: string): string {
  const match = RFC3339_NANO.exec(text)!;
  const fraction = (match[7] ?? '').padEnd(9, '0');
  const offset = match[8] === '+00:00' || match[8] === '-00:00' ? 'Z' : match[8];
  return `${text.slice(0, 19)}.${fraction}${offset}`;
}

/**
 * One record of a CRI log file (`line` with or without its trailing newline), as
 * upstream's parseCRILog reads it; undefined when the line is not a record.
 */
export function parseCriLogLine(line: Buffer): CriLogRecord | undefined {
  const timeEnd = line.indexOf(SPACE);
  if (timeEnd <= 0) return undefined;
  const timeText = line.toString('latin1', 0, timeEnd);
  const timeNs = parseRfc3339NanoNs(timeText);
  if (timeNs === undefined) return undefined;
  const streamEnd = line.indexOf(SPACE, timeEnd + 1);
  if (streamEnd < 0) return undefined;
  const stream = line.toString('latin1', timeEnd + 1, streamEnd);
  if (stream !== 'stdout' && stream !== 'stderr') return undefined;
  const tagsEnd = line.indexOf(SPACE, streamEnd + 1);
  if (tagsEnd < 0) return undefined;
  // Tags are ':'-separated; only the first one (F or P) means anything today.
  const firstTag = line.toString('latin1', streamEnd + 1, tagsEnd).split(':')[0];
  const partial = firstTag === 'P';
  let content = line.subarray(tagsEnd + 1);
  if (partial && content.at(-1) === NEWLINE) content = content.subarray(0, -1);
  return { timeNs, timestamp: fixedNanoTimestamp(timeText), stream, partial, content };
}

/** Upstream runtimes' time format for records: RFC3339Nano in UTC, trailing zeros of the fraction dropped. */
export function formatRecordTime(epochMs: number, extraNs = 0): string {
  const iso = new Date(epochMs).toISOString(); // 2026-11-24T10:45:24.123Z
  const nanos = `${iso.slice(20, 23)}${String(extraNs).padStart(6, '0')}`.replace(/0+$/, '');
  return `${iso.slice(0, 19)}${nanos ? `.${nanos}` : ''}Z`;
}

/**
 * CRI-O's record time, as its conmon writes it (set_k8s_timestamp): nine fraction
 * digits always, and the offset as ±hh:mm; shown in UTC, as on a node whose time
 * zone is UTC (`+00:00`). `epochMs` and `extraNs` as formatRecordTime's.
 */
export function formatConmonRecordTime(epochMs: number, extraNs = 0): string {
  const iso = new Date(epochMs).toISOString();
  return `${iso.slice(0, 19)}.${iso.slice(20, 23)}${String(extraNs).padStart(6, '0')}+00:00`;
}

/** One F record: what a runtime writes for a line the container printed (`text` without its newline). */
export function formatCriLogLine(time: string, stream: LogStream, text: string): string {
  return `${time} ${stream} F ${text}\n`;
}
