// A stand-in for the API server's pods/exec, pods/attach and pods/portforward
// proxying, so real kubectl can drive the kubelet's streaming routes before the
// test API server proxies them itself: a plain-HTTP front that hands every
// ordinary request to the test API server (as its admin) and turns
// .../pods/NAME/exec|attach|portforward upgrades into the kubelet's /exec, /attach,
// /portForward URLs (the API server's streamLocation: `container` into the path,
// true/false into "1"), proxied with the kubelet's own upgrade proxy.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { proxyUpgrade } from '../../src/main/streaming/upgrade-proxy.js';
import type { ClientCredentials } from '../../src/testapiserver/server.js';

const STREAM_PATH = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)\/(exec|attach|portforward)$/;
const KUBELET_PATH: Record<string, string> = { exec: 'exec', attach: 'attach', portforward: 'portForward' };

export interface ApiFront {
  url: string;
  close(): Promise<void>;
}

/** The kubelet URL the API server would proxy a pods/<subresource> request to. */
export function kubeletStreamUrl(kubeletBaseUrl: string, req: IncomingMessage, defaultContainer: string): string | undefined {
  const url = new URL(req.url ?? '/', 'http://front');
  const match = STREAM_PATH.exec(url.pathname);
  if (!match) return undefined;
  const [, namespace, pod, subresource] = match;
  const query = new URLSearchParams();
  for (const [key, value] of url.searchParams) {
    if (key === 'container') continue;
    query.append(key, value === 'true' ? '1' : value === 'false' ? '0' : value);
  }
  const container = subresource === 'portforward' ? '' : `/${url.searchParams.get('container') || defaultContainer}`;
  return `${kubeletBaseUrl}/${KUBELET_PATH[subresource]}/${namespace}/${pod}${container}?${query}`;
}

export async function startApiFront(options: {
  apiUrl: string;
  admin: ClientCredentials;
  kubeletBaseUrl: string;
  defaultContainer: string;
}): Promise<ApiFront> {
  const api = new URL(options.apiUrl);
  const tls = { ca: options.admin.caPem, cert: options.admin.certPem, key: options.admin.keyPem };
  const server: Server = createServer((req, res) => {
    const upstream = httpsRequest(
      { host: api.hostname, port: api.port, method: req.method, path: req.url, headers: { ...req.headers, host: api.host }, ...tls },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', (err) => res.writeHead(502).end(err.message));
    req.pipe(upstream);
  });
  server.on('upgrade', (req, socket, head) => {
    const target = kubeletStreamUrl(options.kubeletBaseUrl, req, options.defaultContainer);
    if (!target) return socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n');
    void proxyUpgrade(req, socket, head, target, { idleTimeoutMs: 0, logger: pino({ level: 'silent' }) });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
