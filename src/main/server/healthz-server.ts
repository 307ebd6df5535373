// The plain-HTTP healthz endpoint on healthzBindAddress:healthzPort (default
// 127.0.0.1:10248), what kubeadm and systemd units poll: /healthz only, no
// authentication, as upstream's healthz server.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeHealthz, type Health } from './healthz.js';
import { isSubpath } from './request-attributes.js';
import { listenError } from './read-only-server.js';

export class HealthzServer {
  private server?: http.Server;

  constructor(private readonly healthy: () => Health) {}

  /** Resolves with the bound port; a port it cannot bind rejects naming --healthz-port. */
  async listen(address: string, port: number): Promise<number> {
    const server = http.createServer((req, res) => {
      const path = (req.url ?? '/').split('?')[0]!;
      if (!isSubpath(path, '/healthz')) {
        res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
        res.end('404 page not found\n');
        return;
      }
      writeHealthz(res, this.healthy(), req.method === 'HEAD');
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', (err: NodeJS.ErrnoException) => reject(listenError(err, '--healthz-port', address, port)));
      server.listen(port, address, () => resolve());
    });
    this.server = server;
    return (server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
