// The kubelet API server (:10250): TLS, then upstream's filter chain on every
// request, plain or upgraded: counted (kubelet_http_requests_*), authenticate
// (401 "Unauthorized"), authorize the request's attributes (403 naming them),
// then the route table. A route handler
// never sees an unauthenticated or unauthorized request.
import type { IncomingMessage, ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { SecureContextOptions } from 'node:tls';
import type { Logger } from 'pino';
import type { RequestAuthenticator } from './authenticator.js';
import type { DynamicClientCa } from './client-ca.js';
import { forbiddenMessage, type RequestAuthorizer } from './authorizer.js';
import { pathBuckets, recordHttpRequest } from '../metrics/http-metrics.js';
import type { KubeletRoutes, Route, RouteContext } from './kubelet-routes.js';
import { listenError } from './read-only-server.js';
import { isSubpath, requestAttributes } from './request-attributes.js';
import type { NodeTlsSettings } from './tls-settings.js';

/** Paths answered 405 "Debug endpoints are disabled." when enableDebuggingHandlers is false, as upstream's InstallDebuggingDisabledHandlers. */
export const DEBUGGING_PATHS = ['/run', '/exec', '/attach', '/portForward', '/containerLogs', '/runningpods', '/debug/pprof', '/logs'];
export const DEBUGGING_DISABLED_BODY = 'Debug endpoints are disabled.\n';

export interface KubeletServerConfig {
  nodeName: string;
  authenticator: RequestAuthenticator;
  authorizer: RequestAuthorizer;
  fineGrainedAuthz: boolean;
  debuggingHandlers: boolean;
  tls: NodeTlsSettings;
  /** authentication.x509.clientCAFile, reloaded when it changes; undefined asks for no client certificate. */
  clientCa?: DynamicClientCa;
  logger: Logger;
}

/** A response written straight to an upgrade request's socket. */
interface Refusal {
  code: number;
  reason: string;
  body: string;
  /** Ask the client to open a new connection for its next request. */
  closeConnection?: boolean;
}

const STATUS_TEXT: Record<number, string> = { 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 405: 'Method Not Allowed', 500: 'Internal Server Error' };

export class KubeletServer {
  private server?: https.Server;
  private readonly sockets = new Set<Socket>();
  private readonly stopping = new AbortController();
  /** The path label values: the roots of the paths served (and answered 405 when debugging is off); any other is "other". */
  private readonly metricBuckets: ReadonlySet<string>;
  private pair?: { certPem: string; keyPem: string };

  constructor(
    private readonly routes: KubeletRoutes,
    private readonly config: KubeletServerConfig,
  ) {
    const served = routes.list().map((route) => route.path);
    this.metricBuckets = pathBuckets(config.debuggingHandlers ? served : [...served, ...DEBUGGING_PATHS]);
  }

  /**
   * Listens on address:port over TLS (port 0 picks one) and resolves with the port.
   * Without a serving pair (serverTLSBootstrap before its certificate is issued)
   * the port is bound but handshakes fail until setServingPair().
   */
  async listen(address: string, port: number, pair: { certPem: string; keyPem: string } | undefined): Promise<number> {
    this.pair = pair;
    const server = https.createServer({
      ...this.secureContext(),
      requestCert: this.config.clientCa !== undefined,
      rejectUnauthorized: false,
    });
    server.on('request', (req: IncomingMessage, res: ServerResponse) => void this.serve(req, res));
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => void this.serveUpgrade(req, socket, head));
    // Node hands CONNECT over as a raw socket too; it goes through the same chain (401/403 first), as upstream serves every method.
    server.on('connect', (req: IncomingMessage, socket: Duplex, head: Buffer) => void this.serveUpgrade(req, socket, head));
    server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    server.on('tlsClientError', (err) => this.config.logger.debug({ err: err.message }, 'kubelet API TLS handshake failed'));
    await new Promise<void>((resolve, reject) => {
      server.once('error', (err: NodeJS.ErrnoException) => reject(listenError(err, '--port', address, port)));
      server.listen(port, address, () => resolve());
    });
    this.server = server;
    // New handshakes verify against the new bundle; requests on open connections are checked against it by the authenticator.
    this.config.clientCa?.on('changed', () => this.server?.setSecureContext(this.secureContext()));
    return (server.address() as AddressInfo).port;
  }

  /** Serves with a new certificate from now on (serverTLSBootstrap: issued or rotated). */
  setServingPair(pair: { certPem: string; keyPem: string }): void {
    this.pair = pair;
    this.server?.setSecureContext(this.secureContext());
  }

  async close(): Promise<void> {
    this.stopping.abort();
    const server = this.server;
    if (!server) return;
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private secureContext(): SecureContextOptions {
    const { tls, clientCa } = this.config;
    const pair = this.pair;
    return {
      ...(pair ? { cert: pair.certPem, key: pair.keyPem } : {}),
      ...(clientCa ? { ca: clientCa.current().pem } : {}),
      minVersion: tls.minVersion,
      ...(tls.ciphers ? { ciphers: tls.ciphers } : {}),
    };
  }

  /** Authentication and authorization: the route context, or the refusal to send. */
  private async admit(req: IncomingMessage, url: URL, signal: AbortSignal): Promise<RouteContext | Refusal> {
    const { authenticator, authorizer, nodeName, fineGrainedAuthz, logger } = this.config;
    const authentication = await authenticator.authenticate(req);
    if (!authentication.user) {
      for (const failure of authentication.failures) {
        // A webhook that cannot be reached is the operator's business. A wrong credential
        // is the caller's: logged at warn, anyone could fill the log with them.
        if (failure.webhookError) logger.warn({ err: failure.failed }, 'Unable to authenticate the request due to an error');
        else logger.debug({ err: failure.failed, path: url.pathname }, 'Unable to authenticate the request');
      }
      // A client certificate cannot change within a TLS connection: a caller that must present another needs a new one.
      return { code: 401, reason: 'Unauthorized', body: 'Unauthorized\n', closeConnection: authentication.certificateFailed };
    }
    const user = authentication.user;
    const attributeSets = requestAttributes(req.method ?? 'GET', url.pathname, nodeName, fineGrainedAuthz);
    try {
      const decision = await authorizer.authorize(user, attributeSets);
      if (!decision.allowed) {
        const body = forbiddenMessage(user, decision.checked);
        logger.debug({ user: user.name, path: url.pathname }, body.trim());
        return { code: 403, reason: 'Forbidden', body };
      }
    } catch (err) {
      const first = attributeSets[0]!;
      const body = `Authorization error (user=${user.name}, verb=${first.verb}, resource=${first.resource}, subresource=${first.subresource})\n`;
      logger.error({ err: (err as Error).message }, body.trim());
      return { code: 500, reason: 'Internal Server Error', body };
    }
    const debuggingDisabled = !this.config.debuggingHandlers && DEBUGGING_PATHS.some((path) => isSubpath(url.pathname, path));
    if (debuggingDisabled) return { code: 405, reason: 'Method Not Allowed', body: DEBUGGING_DISABLED_BODY };
    return { url, user, signal };
  }

  /** The route for the request, or the refusal (404 unknown path, 405 method not served). */
  private routeFor(req: IncomingMessage, url: URL, kind: 'request' | 'upgrade'): Route | Refusal {
    const route = this.routes.match(url.pathname);
    if (!route || !route[kind]) return { code: 404, reason: 'Not Found', body: '404 page not found\n' };
    if (!route.methods.includes(req.method ?? 'GET')) return { code: 405, reason: 'Method Not Allowed', body: `${req.method} is not allowed on ${url.pathname}\n` };
    return route;
  }

  /** Counts the request in kubelet_http_requests_*; the returned function ends it. */
  private countRequest(req: IncomingMessage): () => void {
    return recordHttpRequest(req.method ?? 'GET', (req.url ?? '/').split('?')[0]!, 'readwrite', this.metricBuckets);
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // Every request is counted, refused ones too, as upstream's Server.ServeHTTP does.
    res.once('close', this.countRequest(req));
    const url = parseTarget(req.url);
    if (!url) return refuse(res, { code: 400, reason: 'Bad Request', body: 'unparseable request URL\n' });
    const requestGone = new AbortController();
    res.once('close', () => requestGone.abort());
    const admitted = await this.admit(req, url, AbortSignal.any([requestGone.signal, this.stopping.signal]));
    if ('code' in admitted) return refuse(res, admitted);
    const route = this.routeFor(req, url, 'request');
    if ('code' in route) return refuse(res, route);
    try {
      await route.request!(req, res, admitted);
    } catch (err) {
      this.config.logger.error({ path: url.pathname, err: (err as Error).message }, 'kubelet API handler failed');
      if (!res.headersSent) refuse(res, { code: 500, reason: 'Internal Server Error', body: `${(err as Error).message}\n` });
      else res.destroy();
    }
  }

  private async serveUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    socket.on('error', () => socket.destroy());
    socket.once('close', this.countRequest(req));
    const url = parseTarget(req.url);
    if (!url) return refuseSocket(socket, { code: 400, reason: 'Bad Request', body: 'unparseable request URL\n' });
    const socketGone = new AbortController();
    socket.once('close', () => socketGone.abort());
    const admitted = await this.admit(req, url, AbortSignal.any([socketGone.signal, this.stopping.signal]));
    if ('code' in admitted) return refuseSocket(socket, admitted);
    const route = this.routeFor(req, url, 'upgrade');
    if ('code' in route) return refuseSocket(socket, route);
    try {
      await route.upgrade!(req, socket, head, admitted);
    } catch (err) {
      this.config.logger.error({ path: url.pathname, err: (err as Error).message }, 'kubelet API upgrade handler failed');
      socket.destroy();
    }
  }
}

function parseTarget(target: string | undefined): URL | undefined {
  try {
    return new URL(target ?? '/', 'https://kubelet.invalid');
  } catch {
    return undefined;
  }
}

function refuse(res: ServerResponse, refusal: Refusal): void {
  res.writeHead(refusal.code, {
    'content-type': 'text/plain; charset=utf-8',
    'x-content-type-options': 'nosniff',
    ...(refusal.closeConnection ? { connection: 'close' } : {}),
  });
  res.end(refusal.body);
}

function refuseSocket(socket: Duplex, refusal: Refusal): void {
  const body = Buffer.from(refusal.body);
  const statusText = STATUS_TEXT[refusal.code] ?? refusal.reason;
  socket.end(
    `HTTP/1.1 ${refusal.code} ${statusText}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${refusal.body}`,
  );
}
