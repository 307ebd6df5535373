// Proxies a client's upgraded streaming connection to the runtime's streaming
// server, as upstream's UpgradeAwareHandler does for the kubelet: dial the URL
// the runtime handed out, send the client's request line and its upgrade
// headers there, then copy raw bytes both ways — the runtime's 101 answer
// included. Nothing is parsed after the request, so SPDY/3.1 and websocket
// sessions (any channel protocol) pass alike. Redirecting the client to the
// runtime instead is what upstream removed: the runtime's port is not meant to
// be reachable from outside the node.
import type { IncomingMessage } from 'node:http';
import { connect as connectTcp, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { connect as connectTls } from 'node:tls';
import type { Logger } from 'pino';

/** Request headers the runtime needs to agree on the upgrade; the client's credentials stay with the kubelet. */
const FORWARDED_HEADER_PATTERN = /^(upgrade|connection|sec-websocket-.*|x-stream-protocol-version|origin)$/i;

export interface ProxyOptions {
  /** streamingConnectionIdleTimeout: a connection with no bytes either way for this long is closed. */
  idleTimeoutMs: number;
  logger: Logger;
}

/** The request sent to the runtime: the client's method, the runtime URL's path and query, the upgrade headers. */
export function backendRequestHead(req: IncomingMessage, backend: URL): string {
  const lines = [`${req.method ?? 'GET'} ${backend.pathname}${backend.search} HTTP/1.1`, `Host: ${backend.host}`];
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    if (FORWARDED_HEADER_PATTERN.test(req.rawHeaders[i])) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
  }
  const forwardedFor = [req.headers['x-forwarded-for'], req.socket.remoteAddress].filter(Boolean).join(', ');
  if (forwardedFor) lines.push(`X-Forwarded-For: ${forwardedFor}`);
  return `${lines.join('\r\n')}\r\n\r\n`;
}

/** Connects the client's socket to the runtime's streaming URL; resolves once both ends are closed. */
export function proxyUpgrade(req: IncomingMessage, client: Duplex, head: Buffer, backendUrl: string, options: ProxyOptions): Promise<void> {
  const backend = new URL(backendUrl);
  const port = Number(backend.port) || (backend.protocol === 'https:' ? 443 : 80);
  const host = backend.hostname.replace(/^\[|\]$/g, '');
  const upstream: Socket =
    backend.protocol === 'https:' ? connectTls({ host, port, servername: host, ALPNProtocols: ['http/1.1'] }) : connectTcp({ host, port });
  const log = options.logger.child({ backend: backend.origin });
  return new Promise((resolve) => {
    let connected = false;
    let closedCount = 0;
    const onClosed = (): void => {
      if (++closedCount === 2) resolve();
    };
    const destroyBoth = (): void => {
      client.destroy();
      upstream.destroy();
    };
    client.on('close', onClosed);
    upstream.on('close', onClosed);
    upstream.once(backend.protocol === 'https:' ? 'secureConnect' : 'connect', () => {
      connected = true;
      upstream.write(backendRequestHead(req, backend));
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client, { end: false });
      client.pipe(upstream, { end: false });
    });
    upstream.on('error', (err) => {
      if (!connected && client.writable) {
        // As upstream's responder: the dial error, 500.
        log.warn({ err }, 'Cannot reach the runtime streaming server');
        const body = `${err.message}\n`;
        client.end(
          `HTTP/1.1 500 Internal Server Error\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
        );
      } else {
        log.debug({ err }, 'Streaming connection to the runtime failed');
        destroyBoth();
      }
    });
    client.on('error', (err) => {
      log.debug({ err }, 'Streaming client connection failed');
      destroyBoth();
    });
    // When one side has sent everything and ended, end the other once its bytes are out, then close both.
    for (const [source, target] of [
      [upstream, client],
      [client, upstream],
    ] as const) {
      source.on('end', () => target.end(() => destroyBoth()));
    }
    const onIdle = (): void => {
      log.debug({ idleTimeoutMs: options.idleTimeoutMs }, 'Streaming connection idle; closing');
      destroyBoth();
    };
    if (options.idleTimeoutMs > 0) {
      upstream.setTimeout(options.idleTimeoutMs, onIdle);
      if ('setTimeout' in client && typeof client.setTimeout === 'function') (client as Socket).setTimeout(options.idleTimeoutMs, onIdle);
    }
  });
}
