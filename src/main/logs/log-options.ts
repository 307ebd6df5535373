// The query of GET /containerLogs/{namespace}/{pod}/{container}: upstream's v1
// PodLogOptions as the kubelet server decodes it (pkg/kubelet/server/server.go
// getContainerLogs), validated as ValidatePodLogOptions does, and turned into
// the reader's options as kuberuntime/logs NewLogOptions does.
import { parseRfc3339NanoNs, type LogStream } from '../../shared/logs/cri-log-format.js';

/** What the reader does: upstream's LogOptions. */
export interface LogReadOptions {
  /** Records before this time are skipped; 0n reads from the start. */
  sinceNs: bigint;
  /** Start this many records from the end; -1 for all. */
  tailLines: number;
  /** Stop after this many bytes of output; -1 for no limit. */
  limitBytes: number;
  follow: boolean;
  timestamps: boolean;
  /** Only these streams; both when `stream` is All or absent. */
  streams: ReadonlySet<LogStream>;
}

export interface LogQuery {
  read: LogReadOptions;
  previous: boolean;
}

/** A query upstream refuses, with the status and the body it answers. */
export class LogQueryError extends Error {
  constructor(
    readonly statusCode: 400 | 422,
    message: string,
  ) {
    super(message);
  }
}

const BOTH_STREAMS: ReadonlySet<LogStream> = new Set(['stdout', 'stderr']);
const STREAMS_BY_NAME: Readonly<Record<string, ReadonlySet<LogStream>>> = {
  All: BOTH_STREAMS,
  Stdout: new Set(['stdout']),
  Stderr: new Set(['stderr']),
};
const DECODE_ERROR = '{"message": "Unable to decode query."}';
const INVALID_ERROR = '{"message": "Invalid request."}';
const INTEGER = /^[+-]?\d+$/;

/**
 * The query of a request, as upstream decodes and validates it; throws LogQueryError.
 * `stream` is only accepted with the PodLogsQuerySplitStreams gate (alpha in 1.34).
 */
export function parseLogQuery(query: URLSearchParams, nowMs: number, splitStreams = false): LogQuery {
  const values = new URLSearchParams(query);
  // The old `tail` parameter: a number, or "all" for no tail.
  const tail = values.get('tail');
  if (tail) {
    if (tail === 'all') values.delete('tailLines');
    else values.set('tailLines', tail);
  }
  const tailLines = integer(values, 'tailLines');
  const limitBytes = integer(values, 'limitBytes');
  const sinceSeconds = integer(values, 'sinceSeconds');
  const sinceTimeText = values.get('sinceTime');
  let sinceTimeNs: bigint | undefined;
  if (sinceTimeText !== null) {
    sinceTimeNs = parseRfc3339NanoNs(sinceTimeText);
    if (sinceTimeNs === undefined) throw new LogQueryError(400, DECODE_ERROR);
  }
  const streamName = values.get('stream');
  const streams = streamName === null ? BOTH_STREAMS : STREAMS_BY_NAME[streamName];
  // ValidatePodLogOptions.
  const invalid =
    (tailLines !== undefined && tailLines < 0) ||
    (limitBytes !== undefined && limitBytes < 1) ||
    (sinceSeconds !== undefined && sinceSeconds < 1) ||
    (sinceSeconds !== undefined && sinceTimeNs !== undefined) ||
    streams === undefined ||
    (streamName !== null && !splitStreams) ||
    (tailLines !== undefined && streamName !== null && streamName !== 'All');
  if (invalid) throw new LogQueryError(422, INVALID_ERROR);

  let sinceNs = 0n;
  if (sinceSeconds !== undefined) sinceNs = (BigInt(nowMs) - BigInt(sinceSeconds) * 1000n) * 1_000_000n;
  if (sinceTimeNs !== undefined && sinceTimeNs > sinceNs) sinceNs = sinceTimeNs;
  return {
    previous: flag(values, 'previous'),
    read: {
      sinceNs,
      tailLines: tailLines ?? -1,
      limitBytes: limitBytes ?? -1,
      follow: flag(values, 'follow'),
      timestamps: flag(values, 'timestamps'),
      streams,
    },
  };
}

function integer(values: URLSearchParams, name: string): number | undefined {
  const text = values.get(name);
  if (text === null) return undefined;
  if (!INTEGER.test(text) || !Number.isSafeInteger(Number(text))) throw new LogQueryError(400, DECODE_ERROR);
  return Number(text);
}

/** Query booleans as apimachinery converts them: absent, "false" or "0" is false, anything else true. */
function flag(values: URLSearchParams, name: string): boolean {
  const text = values.get(name);
  if (text === null) return false;
  return !(text === '0' || text.toLowerCase() === 'false');
}
