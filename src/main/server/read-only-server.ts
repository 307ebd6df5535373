// The kubelet's read-only HTTP endpoints on localhost: /healthz, /pods (a PodList
// with the statuses the shards computed, as upstream's read-only /pods) and
// /stats/startup (per-pod start latency), /stats/cri (CRI calls per method) and
// /stats/threads (CPU time per thread), /stats/heap (each thread's V8 heap) and
// /stats/probes (each shard's probe counts and recent probe durations), read by the
// bench (?seenSince=<epoch ms> for the pods seen since then).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { ErrorCodes, ShardletError } from '../../shared/errors.js';
import type { ProbeStats } from '../../shared/shard-protocol.js';
import type { ThreadCpuReport } from '../../shared/thread-cpu.js';
import type { ThreadHeapReport } from '../../shared/thread-heap.js';
import type { Pod, PodStatus } from '../../shared/types.js';

const LISTEN_HOST = '127.0.0.1';
/** Go's wording for the bind errors an operator meets, as upstream's "listen tcp …: bind: …" shows them. */
const BIND_ERROR_TEXT: Record<string, string> = {
  EADDRINUSE: 'address already in use',
  EACCES: 'permission denied',
  EADDRNOTAVAIL: 'cannot assign requested address',
};

export interface ReadOnlyServerSource {
  pods(): Pod[];
  statusOf(uid: string): PodStatus | undefined;
  healthy(): { ok: boolean; reason: string };
  startupRecords(): Array<{ seenAtMs: number }>;
  criCalls(): Record<string, number>;
  threadCpu(): Promise<ThreadCpuReport>;
  threadHeaps?(): Promise<ThreadHeapReport>;
  probeStats?(): Promise<ProbeStats[]>;
}

export class ReadOnlyServer {
  private server?: http.Server;

  constructor(
    private readonly source: ReadOnlyServerSource,
    private readonly logger: Logger,
  ) {}

  /**
   * Listens on 127.0.0.1:port (0 picks a free port); resolves with the port. A port
   * it cannot bind rejects with SHARDLET_LISTEN_FAILED naming `setting`, the flag
   * the port came from.
   */
  async listen(port: number, setting: string): Promise<number> {
    const server = http.createServer((req, res) => this.handle(req, res));
    await new Promise<void>((resolve, reject) => {
      server.once('error', (err: NodeJS.ErrnoException) => reject(listenError(err, setting, LISTEN_HOST, port)));
      server.listen(port, LISTEN_HOST, () => resolve());
    });
    this.server = server;
    const bound = (server.address() as AddressInfo).port;
    this.logger.info({ port: bound }, `Read-only server listening on ${LISTEN_HOST}`);
    return bound;
  }

  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const url = parseRequestUrl(req.url);
    if (!url) return send(res, 400, { message: 'unparseable request URL' });
    const path = url.pathname;
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
      case '/stats/startup': {
        // ?seenSince=<epoch ms>: only pods first seen then or later, so a long churn reads what is new.
        const seenSince = Number(url.searchParams.get('seenSince') ?? 0);
        if (!Number.isFinite(seenSince)) return send(res, 400, { message: 'seenSince must be epoch milliseconds' });
        const items = this.source.startupRecords().filter((record) => record.seenAtMs >= seenSince);
        return send(res, 200, { items });
      }
      case '/stats/cri':
        return send(res, 200, { calls: this.source.criCalls() });
      case '/stats/threads':
        // Asks every worker thread for its own figure; a thread that cannot answer makes it a 503, the server stays up.
        this.source.threadCpu().then(
          (report) => send(res, 200, report),
          (err: Error) => send(res, 503, { message: `thread CPU unavailable: ${err.message}` }),
        );
        return;
      case '/stats/heap': {
        const threadHeaps = this.source.threadHeaps;
        if (!threadHeaps) return send(res, 404, { message: 'no heap figures in this process' });
        threadHeaps.call(this.source).then(
          (report) => send(res, 200, report),
          (err: Error) => send(res, 503, { message: `heap figures unavailable: ${err.message}` }),
        );
        return;
      }
      case '/stats/probes': {
        const probeStats = this.source.probeStats;
        if (!probeStats) return send(res, 404, { message: 'no probe figures in this process' });
        probeStats.call(this.source).then(
          (shards) => send(res, 200, { shards }),
          (err: Error) => send(res, 503, { message: `probe figures unavailable: ${err.message}` }),
        );
        return;
      }
      default:
        return send(res, 404, { message: `no handler for ${path}` });
    }
  }
}

/** One line for the operator: the flag, the port and why, as upstream's "listen tcp 0.0.0.0:10255: bind: address already in use". */
export function listenError(err: NodeJS.ErrnoException, setting: string, host: string, port: number): ShardletError {
  const reason = BIND_ERROR_TEXT[err.code ?? ''] ?? err.message;
  return new ShardletError(ErrorCodes.LISTEN_FAILED, `${setting} ${port}: listen tcp ${host}:${port}: bind: ${reason}`, {
    setting,
    port,
    errno: err.code,
  });
}

/** The request target, or undefined when it is no URL (any client can send one; the server must stay up). */
function parseRequestUrl(target: string | undefined): URL | undefined {
  try {
    return new URL(target ?? '/', 'http://localhost');
  } catch {
    return undefined;
  }
}

function send(res: http.ServerResponse, code: number, body: unknown): void {
  res.writeHead(code, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}
