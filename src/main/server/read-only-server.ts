// The kubelet's read-only HTTP endpoints on localhost: /healthz, /pods (a PodList
// with the statuses the shards computed, as upstream's read-only /pods) and
// /stats/startup (per-pod start latency) and /stats/cri (CRI calls per method), read
// by the bench.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { Pod, PodStatus } from '../../shared/types.js';

export interface ReadOnlyServerSource {
  pods(): Pod[];
  statusOf(uid: string): PodStatus | undefined;
  healthy(): { ok: boolean; reason: string };
  startupRecords(): unknown[];
  criCalls(): Record<string, number>;
}

export class ReadOnlyServer {
  private server?: http.Server;

  constructor(
    private readonly source: ReadOnlyServerSource,
    private readonly logger: Logger,
  ) {}

  /** Listens on 127.0.0.1:port (0 picks a free port); resolves with the port. */
  async listen(port: number): Promise<number> {
    const server = http.createServer((req, res) => this.handle(req, res));
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    const bound = (server.address() as AddressInfo).port;
    this.logger.info({ port: bound }, 'Read-only server listening on 127.0.0.1');
    return bound;
  }

  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET') return send(res, 405, { message: 'only GET is served' });
    switch (path) {
      case '/healthz': {
        const health = this.source.healthy();
        res.writeHead(health.ok ? 200 : 500, { 'content-type': 'text/plain' });
        res.end(health.ok ? 'ok' : `unhealthy: ${health.reason}`);
        return;
      }
      case '/pods': {
        const items = this.source.pods().map((pod) => ({ ...pod, status: this.source.statusOf(pod.metadata?.uid ?? '') ?? pod.status }));
        return send(res, 200, { kind: 'PodList', apiVersion: 'v1', metadata: {}, items });
      }
      case '/stats/startup':
        return send(res, 200, { items: this.source.startupRecords() });
      case '/stats/cri':
        return send(res, 200, { calls: this.source.criCalls() });
      default:
        return send(res, 404, { message: `no handler for ${path}` });
    }
  }
}

function send(res: http.ServerResponse, code: number, body: unknown): void {
  res.writeHead(code, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}
