// Dev tooling for tests and the bench: a plain HTTP server over a KubeletRoutes
// table, to drive route modules without the :10250 server, which puts TLS,
// authentication and authorization in front of the same table. Every request is
// served as an authenticated test user.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { KubeletRoutes } from '../main/server/kubelet-routes.js';

export interface RouteServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

export async function serveRoutes(routes: KubeletRoutes): Promise<RouteServer> {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const route = routes.match(url.pathname);
    if (!route?.request) {
      res.writeHead(404).end('404 page not found\n');
      return;
    }
    if (!route.methods.includes(req.method ?? '')) {
      res.writeHead(405).end();
      return;
    }
    const abort = new AbortController();
    res.once('close', () => abort.abort());
    Promise.resolve(route.request(req, res, { url, user: { name: 'test', groups: ['system:masters'] }, signal: abort.signal })).catch((err: Error) => {
      if (!res.headersSent) res.writeHead(500);
      res.end(err.message);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
