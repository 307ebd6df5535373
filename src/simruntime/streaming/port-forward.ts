// Port forwarding over SPDY (portforward.k8s.io), as upstream's server pairs the
// streams: for every connection the client opens an `error` and a `data` stream
// carrying the same `port` and `requestID` headers; the data stream is piped to
// the pod's port, a failure is reported as text on the error stream.
//
// The sim runs no pod network: every pod port is reached on the sim host's
// loopback, 127.0.0.1:<port>, so a test serves the "pod" there.
import { connect } from 'node:net';
import type { Logger } from 'pino';
import type { SpdyConnection, SpdyStream } from './spdy-connection.js';

interface StreamPair {
  error?: SpdyStream;
  data?: SpdyStream;
}

export function servePortForward(connection: SpdyConnection, sandboxId: string, logger: Logger): void {
  const pairs = new Map<string, StreamPair>();
  connection.on('stream', (stream) => {
    stream.reply();
    const requestId = stream.headers['requestid'] ?? '';
    const type = stream.headers['streamtype'];
    if (type !== 'error' && type !== 'data') {
      stream.reset();
      return;
    }
    const pair = pairs.get(requestId) ?? {};
    pair[type] = stream;
    pairs.set(requestId, pair);
    if (pair.error && pair.data) {
      pairs.delete(requestId);
      forward(Number(stream.headers['port']), pair.data, pair.error, sandboxId, logger);
    }
  });
}

function forward(port: number, data: SpdyStream, error: SpdyStream, sandboxId: string, logger: Logger): void {
  // The client never writes on the error stream; it only waits for its end.
  error.resume();
  if (!Number.isInteger(port) || port < 1 || port > 65_535) {
    error.end(`invalid port ${String(port)}`);
    data.end();
    return;
  }
  const socket = connect({ host: '127.0.0.1', port });
  socket.on('connect', () => {
    data.pipe(socket);
    socket.pipe(data);
  });
  socket.on('error', (err) => {
    logger.debug({ err, port, sandboxId }, 'port-forward connection failed');
    if (!error.writableEnded) error.end(`error forwarding port ${port} to pod ${sandboxId}: ${err.message}`);
    if (!data.writableEnded) data.end();
  });
  socket.on('close', () => {
    if (!error.writableEnded) error.end();
  });
  data.on('close', () => socket.destroy());
}
