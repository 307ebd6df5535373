// The kubelet API's streaming endpoints, as upstream's server.go serves them:
// /exec, /attach and /portForward (GET and POST) get the runtime's streaming URL
// through CRI and proxy the client's upgraded connection to it; /run (POST) runs
// a command through ExecSync and answers with its output. Runs on the main
// thread: each request is one CRI call and then bytes copied between sockets.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { PORT_FORWARD_TUNNEL_PROTOCOL } from '../../shared/streaming/protocols.js';
import type { Route, RouteContext } from '../server/kubelet-routes.js';
import {
  NOT_FOUND,
  isFailure,
  parsePortForwardPorts,
  parseRunCommand,
  parseStreamOptions,
  parseStreamPath,
  type StreamFailure,
} from './stream-request.js';
import { attachUrl, execUrl, findContainer, podByName, portForwardUrl, RETRY_AFTER_SECONDS, type ResolvedUrl, type StreamingHost } from './stream-targets.js';
import { proxyUpgrade } from './upgrade-proxy.js';

export type { StreamingHost } from './stream-targets.js';

export interface StreamingRouteOptions {
  /** streamingConnectionIdleTimeout. */
  idleTimeoutMs: number;
  logger: Logger;
}

/** UpgradeAwareHandler's answer, through the kubelet's responder (which always says 500), to a request that did not upgrade. */
export const UPGRADE_REQUIRED: StreamFailure = { statusCode: 500, message: 'Upgrade request required' };

export function streamingRoutes(host: StreamingHost, options: StreamingRouteOptions): Route[] {
  const streamRoute = (path: string): Route => ({
    path,
    methods: ['GET', 'POST'],
    request: async (req, res, ctx) => {
      const resolved = await resolveUrl(host, req, ctx);
      writeFailure(res, 'url' in resolved ? UPGRADE_REQUIRED : resolved);
    },
    upgrade: async (req, socket, head, ctx) => {
      const resolved = await resolveUrl(host, req, ctx);
      if (!('url' in resolved)) return writeFailureToSocket(socket, resolved);
      options.logger.debug({ path: ctx.url.pathname, user: ctx.user.name }, 'Proxying streaming connection to the runtime');
      await proxyUpgrade(req, socket, head, resolved.url, options);
    },
  });
  return [
    streamRoute('/exec/'),
    streamRoute('/attach/'),
    streamRoute('/portForward/'),
    { path: '/run/', methods: ['POST'], request: (req, res, ctx) => serveRun(host, res, ctx) },
  ];
}

/** The runtime URL for an exec, attach or port-forward request, or the failure to answer with. */
async function resolveUrl(host: StreamingHost, req: IncomingMessage, ctx: RouteContext): Promise<ResolvedUrl> {
  const target = parseStreamPath(ctx.url.pathname);
  if (!target || target.kind === 'run') return NOT_FOUND;
  const query = ctx.url.searchParams;
  if (target.kind === 'portForward') {
    const offered = String(req.headers['sec-websocket-protocol'] ?? '').split(',').map((protocol) => protocol.trim());
    const isWebSocket = String(req.headers.upgrade ?? '').toLowerCase() === 'websocket';
    // Over the SPDY tunnel each stream names its port, as over plain SPDY.
    const ports = parsePortForwardPorts(query, isWebSocket && !offered.includes(PORT_FORWARD_TUNNEL_PROTOCOL));
    if (isFailure(ports)) return ports;
    const pod = podByName(host, target.namespace, target.podName);
    if (!pod) return { statusCode: 404, message: 'pod does not exist' };
    if (target.podUid && pod.metadata?.uid !== target.podUid) return { statusCode: 404, message: 'pod not found' };
    return portForwardUrl(host, pod, ports);
  }
  const streamOptions = parseStreamOptions(query);
  if (isFailure(streamOptions)) return streamOptions;
  const pod = podByName(host, target.namespace, target.podName);
  if (!pod) return { statusCode: 404, message: 'pod does not exist' };
  if (target.kind === 'attach') return attachUrl(host, pod, target, streamOptions);
  return execUrl(host, pod, target, streamOptions, query.getAll('command'));
}

/** Upstream's getRun: ExecSync without a timeout; stdout then stderr as the body; a non-zero exit is a 500. */
async function serveRun(host: StreamingHost, res: ServerResponse, ctx: RouteContext): Promise<void> {
  const target = parseStreamPath(ctx.url.pathname);
  if (!target || target.kind !== 'run') return writeFailure(res, NOT_FOUND);
  const pod = podByName(host, target.namespace, target.podName);
  if (!pod) return writeFailure(res, { statusCode: 404, message: 'pod does not exist' });
  const cmd = parseRunCommand(ctx.url.searchParams);
  const found = await findContainer(host, pod, target);
  if ('statusCode' in found) return writeFailure(res, { statusCode: 500, message: found.message });
  try {
    const reply = await found.cri.execSync({ container_id: found.containerId, cmd, timeout: 0 });
    if (reply.exit_code !== 0) {
      return writeFailure(res, { statusCode: 500, message: `command '${cmd.join(' ')}' exited with ${reply.exit_code}: ${reply.stderr.toString()}` });
    }
    const output = Buffer.concat([reply.stdout, reply.stderr]);
    // Upstream's writeJSONResponse labels whatever the command printed as JSON.
    res.writeHead(200, output.length > 0 ? { 'Content-Type': 'application/json' } : {});
    res.end(output);
  } catch (err) {
    writeFailure(res, { statusCode: 500, message: (err as Error).message });
  }
}

function failureHeaders(failure: StreamFailure, body: string): Record<string, string> {
  return {
    'Content-Type': 'text/plain; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(body)),
    ...(failure.statusCode === 429 ? { 'Retry-After': String(RETRY_AFTER_SECONDS) } : {}),
  };
}

function writeFailure(res: ServerResponse, failure: StreamFailure): void {
  const body = `${failure.message}\n`;
  res.writeHead(failure.statusCode, failureHeaders(failure, body));
  res.end(body);
}

const REASON_PHRASES: Record<number, string> = { 400: 'Bad Request', 404: 'Not Found', 429: 'Too Many Requests', 500: 'Internal Server Error' };

/** The same answer on a socket Node already handed over for an upgrade. */
function writeFailureToSocket(socket: Duplex, failure: StreamFailure): void {
  const body = `${failure.message}\n`;
  const headers = Object.entries({ ...failureHeaders(failure, body), Connection: 'close' })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.end(`HTTP/1.1 ${failure.statusCode} ${REASON_PHRASES[failure.statusCode] ?? 'Error'}\r\n${headers}\r\n${body}`);
}
