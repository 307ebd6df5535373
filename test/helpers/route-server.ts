// Serves kubelet API routes on a plain HTTP server on 127.0.0.1, the way the
// :10250 server hands requests to them once authn/authz passed: a route's
// `request` for plain requests, its `upgrade` for `Upgrade:` requests, 404 for
// unknown paths and 405 for other methods. Tests of a route module mount it here.
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { KubeletRoutes, RouteContext } from '../../src/main/server/kubelet-routes.js';

export interface RouteServer {
  /** http://127.0.0.1:PORT */
  baseUrl: string;
  port: number;
  /** Sockets open on the server right now (for leak checks). */
  openSockets(): number;
  close(): Promise<void>;
}

export async function serveRoutes(routes: KubeletRoutes): Promise<RouteServer> {
  const sockets = new Set<Socket>();
  const server: Server = createServer();
  const context = (url: string, onClose: (listener: () => void) => void): RouteContext => {
    const abort = new AbortController();
    onClose(() => abort.abort());
    return { url: new URL(url, 'http://127.0.0.1'), user: { name: 'test-user', groups: ['system:authenticated'] }, signal: abort.signal };
  };
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('request', (req, res) => {
    const ctx = context(req.url ?? '/', (listener) => res.on('close', listener));
    const route = routes.match(ctx.url.pathname);
    if (!route?.request) return res.writeHead(404).end('404 page not found\n');
    if (!route.methods.includes(req.method ?? '')) return res.writeHead(405).end('Method Not Allowed\n');
    void route.request(req, res, ctx);
  });
  server.on('upgrade', (req, socket, head) => {
    const ctx = context(req.url ?? '/', (listener) => socket.on('close', listener));
    const route = routes.match(ctx.url.pathname);
    if (!route?.upgrade || !route.methods.includes(req.method ?? '')) {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n');
      return;
    }
    void route.upgrade(req, socket, head, ctx);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    port,
    openSockets: () => sockets.size,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
