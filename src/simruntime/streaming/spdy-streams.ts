// Exec/attach over SPDY, as upstream's remotecommand server waits for it: the
// client opens one stream per channel, named by its `streamType` header (error,
// stdin, stdout, stderr, and resize with a TTY from v3 on); the session starts
// once every expected stream is there, and ends with the status on the error
// stream and the connection closed.
import { encodeExitStatus, type RemoteCommandStreams } from './remote-command.js';
import type { SpdyConnection, SpdyStream } from './spdy-connection.js';

/** Upstream's DefaultStreamCreationTimeout. */
export const STREAM_CREATION_TIMEOUT_MS = 30_000;

export interface SpdySessionOptions {
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
  tty: boolean;
  cmd: readonly string[];
}

/** Resolves with the session's streams once the client opened them all; undefined if it gave up or timed out. */
export async function spdyStreams(
  connection: SpdyConnection,
  protocol: string,
  options: SpdySessionOptions,
): Promise<RemoteCommandStreams | undefined> {
  const expected = new Set(['error']);
  if (options.stdin) expected.add('stdin');
  if (options.stdout) expected.add('stdout');
  if (options.stderr && !options.tty) expected.add('stderr');
  if (options.tty && protocol !== 'v2.channel.k8s.io' && protocol !== 'channel.k8s.io') expected.add('resize');
  const byType = new Map<string, SpdyStream>();
  const gone = new AbortController();
  connection.on('close', () => gone.abort());

  let timer: NodeJS.Timeout | undefined;
  const complete = new Promise<boolean>((resolve) => {
    connection.on('stream', (stream) => {
      stream.reply();
      byType.set(stream.headers['streamtype'] ?? '', stream);
      // The resize stream's content (terminal sizes) means nothing to a modelled process.
      if (stream.headers['streamtype'] === 'resize') stream.resume();
      if ([...expected].every((type) => byType.has(type))) resolve(true);
    });
    connection.on('close', () => resolve(false));
    timer = setTimeout(() => resolve(false), STREAM_CREATION_TIMEOUT_MS);
  });
  const ready = await complete;
  clearTimeout(timer);
  if (!ready) {
    connection.destroy();
    return undefined;
  }
  const stdout = byType.get('stdout');
  const stderr = byType.get('stderr');
  const error = byType.get('error')!;
  return {
    stdin: byType.get('stdin'),
    stdout: stdout ? (chunk) => stdout.write(chunk) : undefined,
    stderr: stderr ? (chunk) => stderr.write(chunk) : undefined,
    gone: gone.signal,
    finish: (status) => {
      stdout?.end();
      stderr?.end();
      const payload = encodeExitStatus(protocol, status, options.cmd);
      if (payload) error.write(payload);
      error.end();
      connection.close();
    },
  };
}
