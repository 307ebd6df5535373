// What an exec or attach session carries, whatever the wire (SPDY streams or
// websocket channels): stdin in, stdout/stderr out, and at the end the exit
// status on the error stream, encoded per protocol version as upstream's
// remotecommand server does (v1–v3: an error text, only on failure; v4/v5: a
// metav1.Status JSON, Success or Failure with reason NonZeroExitCode and the
// exit code as a cause).
import type { Readable } from 'node:stream';

/** How the session ended. */
export type ExitStatus = { exitCode: number } | { error: string };

/** The streams of one session, as the wire delivered them. */
export interface RemoteCommandStreams {
  /** Absent when the session has no stdin. */
  stdin?: Readable;
  stdout?: (chunk: Buffer | string) => void;
  stderr?: (chunk: Buffer | string) => void;
  /** Writes the exit status and closes the session. */
  finish(status: ExitStatus): void;
  /** Aborted when the client goes away. */
  gone: AbortSignal;
}

/** The error-stream payload for a protocol version; undefined when nothing is written (v1–v3 success). */
export function encodeExitStatus(protocol: string, status: ExitStatus, cmd: readonly string[]): Buffer | undefined {
  const jsonStatus = protocol.startsWith('v4.') || protocol.startsWith('v5.');
  if ('exitCode' in status && status.exitCode === 0) {
    return jsonStatus ? Buffer.from(JSON.stringify({ metadata: {}, status: 'Success' })) : undefined;
  }
  if ('error' in status) {
    // apierrors.NewInternalError's shape.
    const cause = `error executing command in container: ${status.error}`;
    if (!jsonStatus) return Buffer.from(cause);
    return Buffer.from(
      JSON.stringify({
        metadata: {},
        status: 'Failure',
        message: `Internal error occurred: ${cause}`,
        reason: 'InternalError',
        details: { causes: [{ message: cause }] },
        code: 500,
      }),
    );
  }
  const message = `command terminated with non-zero exit code: error executing command [${cmd.join(' ')}], exit code ${status.exitCode}`;
  if (!jsonStatus) return Buffer.from(message);
  return Buffer.from(
    JSON.stringify({
      metadata: {},
      status: 'Failure',
      message,
      reason: 'NonZeroExitCode',
      details: { causes: [{ reason: 'ExitCode', message: String(status.exitCode) }] },
    }),
  );
}
