// The simulated runtime's streaming server, the counterpart of containerd's CRI
// streaming server: Exec, Attach and PortForward hand out a URL here carrying a
// one-time token (valid one minute, as upstream's token cache), and the client
// (the kubelet's proxy) upgrades a request on it to SPDY/3.1 or a websocket
// (exec/attach channels, or port-forward's SPDY tunnelled in a websocket).
// One HTTP server per sim process, on 127.0.0.1 and a port the OS picks.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { createWebSocketStream, WebSocketServer } from 'ws';
import {
  PORT_FORWARD_PROTOCOL,
  PORT_FORWARD_TUNNEL_PROTOCOL,
  SPDY_EXEC_PROTOCOLS,
  WEBSOCKET_EXEC_PROTOCOLS,
} from '../../shared/streaming/protocols.js';
import type { SimContext } from '../sim-context.js';
import { SimError } from '../sim-error.js';
import { servePortForward } from './port-forward.js';
import { serveRemoteCommand, type RemoteCommandRequest } from './session.js';
import { SpdyConnection } from './spdy-connection.js';
import { spdyStreams } from './spdy-streams.js';
import { websocketStreams } from './websocket-channels.js';

/** Upstream's streaming token lifetime (CacheTTL). */
export const TOKEN_TTL_MS = 60_000;
/** Upstream's MaxInFlight: more pending tokens than this is ResourceExhausted. */
export const MAX_PENDING_TOKENS = 1_000;

export type StreamRequest = RemoteCommandRequest | { kind: 'portforward'; sandboxId: string; ports: number[] };

interface PendingRequest {
  request: StreamRequest;
  expiresAtMs: number;
}

export class StreamingServer {
  private readonly pendingByToken = new Map<string, PendingRequest>();
  private readonly sockets = new Set<Duplex>();
  private readonly websockets = new WebSocketServer({
    noServer: true,
    handleProtocols: (offered) => WEBSOCKET_EXEC_PROTOCOLS.find((protocol) => offered.has(protocol)) ?? false,
  });
  private readonly tunnels = new WebSocketServer({ noServer: true, handleProtocols: () => PORT_FORWARD_TUNNEL_PROTOCOL });
  private baseUrl = '';

  private constructor(
    private readonly ctx: SimContext,
    private readonly server: Server,
  ) {}

  static async start(ctx: SimContext): Promise<StreamingServer> {
    const server = createServer();
    const streaming = new StreamingServer(ctx, server);
    server.on('request', (req, res) => {
      const found = streaming.take(req);
      res.statusCode = found ? 400 : 404;
      res.end(found ? 'unable to upgrade: missing upgrade headers in request\n' : '404 page not found\n');
    });
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => streaming.onUpgrade(req, socket, head));
    server.on('connection', (socket) => {
      streaming.sockets.add(socket);
      socket.on('close', () => streaming.sockets.delete(socket));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    streaming.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return streaming;
  }

  /** A one-time URL serving `request`. */
  issue(request: StreamRequest): string {
    const now = Date.now();
    for (const [token, pending] of this.pendingByToken) if (pending.expiresAtMs <= now) this.pendingByToken.delete(token);
    if (this.pendingByToken.size >= MAX_PENDING_TOKENS) {
      throw new SimError(GrpcStatus.RESOURCE_EXHAUSTED, 'maximum number of in-flight requests exceeded');
    }
    const token = randomBytes(8).toString('base64url');
    this.pendingByToken.set(token, { request, expiresAtMs: now + TOKEN_TTL_MS });
    return `${this.baseUrl}/${request.kind}/${token}`;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    this.websockets.close();
    this.tunnels.close();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** The request a URL's token stands for, consumed; undefined when unknown, expired or of another kind. */
  private take(req: IncomingMessage): StreamRequest | undefined {
    const [, kind, token] = (req.url ?? '').split('?')[0].split('/');
    const pending = this.pendingByToken.get(token ?? '');
    if (!pending || pending.request.kind !== kind) return undefined;
    this.pendingByToken.delete(token);
    return pending.expiresAtMs > Date.now() ? pending.request : undefined;
  }

  private onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const request = this.take(req);
    if (!request) return reject(socket, 404, '404 page not found');
    const upgrade = (req.headers.upgrade ?? '').toLowerCase();
    if (upgrade === 'websocket') {
      const offered = headerValues(req.headers['sec-websocket-protocol']);
      if (request.kind === 'portforward') {
        if (!offered.includes(PORT_FORWARD_TUNNEL_PROTOCOL)) return reject(socket, 400, 'port forwarding over websockets needs the SPDY tunnel');
        // kubectl ≥ 1.31: the SPDY session travels inside the websocket's binary messages. The
        // subprotocol's '/' is not an RFC 6455 token, which ws refuses to parse: it is swapped for
        // a placeholder here, and the answer names the real one (handleProtocols above).
        req.headers['sec-websocket-protocol'] = 'portforward-tunnel';
        this.tunnels.handleUpgrade(req, socket, head, (ws) => {
          servePortForward(new SpdyConnection(createWebSocketStream(ws), { isServer: true }), request.sandboxId, this.ctx.logger);
        });
        return;
      }
      // As containerd (upstream's wsstream): subprotocols offered but none spoken is a refusal, which kubectl answers by falling back to SPDY.
      if (offered.length > 0 && !offered.some((protocol) => WEBSOCKET_EXEC_PROTOCOLS.includes(protocol))) {
        return reject(socket, 403, `unable to upgrade: requested protocol(s) are not supported: [${offered.join(' ')}]; supports [${WEBSOCKET_EXEC_PROTOCOLS.join(' ')}]`);
      }
      this.websockets.handleUpgrade(req, socket, head, (ws) => {
        void serveRemoteCommand(this.ctx, request, websocketStreams(ws, ws.protocol, request));
      });
      return;
    }
    if (!upgrade.startsWith('spdy/3')) return reject(socket, 400, 'unable to upgrade: missing upgrade headers in request');
    const serverProtocols = request.kind === 'portforward' ? [PORT_FORWARD_PROTOCOL] : SPDY_EXEC_PROTOCOLS;
    const clientProtocols = headerValues(req.headers['x-stream-protocol-version']);
    // As upstream's httpstream.Handshake: the client's first protocol the server speaks; none offered is the legacy v1.
    const protocol = clientProtocols.length === 0 ? '' : clientProtocols.find((offered) => serverProtocols.includes(offered));
    if (protocol === undefined) {
      return reject(
        socket,
        403,
        `unable to upgrade: unable to negotiate protocol: client supports [${clientProtocols.join(' ')}], server supports [${serverProtocols.join(' ')}]`,
      );
    }
    socket.write(
      'HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n' +
        (protocol ? `X-Stream-Protocol-Version: ${protocol}\r\n` : '') +
        '\r\n',
    );
    if (head.length > 0) socket.unshift(head);
    const connection = new SpdyConnection(socket, { isServer: true });
    if (request.kind === 'portforward') {
      servePortForward(connection, request.sandboxId, this.ctx.logger);
      return;
    }
    void spdyStreams(connection, protocol || 'channel.k8s.io', request).then(
      (streams) => streams && serveRemoteCommand(this.ctx, request, streams),
    );
  }
}

/** Values of a header sent once comma-joined or several times (Node joins repeats with ", "). */
function headerValues(value: string | string[] | undefined): string[] {
  const joined = Array.isArray(value) ? value.join(',') : (value ?? '');
  return joined
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
}

function reject(socket: Duplex, statusCode: number, message: string): void {
  const reason = statusCode === 404 ? 'Not Found' : statusCode === 403 ? 'Forbidden' : 'Bad Request';
  socket.end(`HTTP/1.1 ${statusCode} ${reason}\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n${message}\n`);
}
