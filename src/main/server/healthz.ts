// The kubelet's /healthz answer, shared by :10250 and the plain-HTTP healthz port:
// "ok", or 500 naming the failed check as upstream's healthz handler does (its
// one kubelet check is the sync loop).
import type { ServerResponse } from 'node:http';

export interface Health {
  ok: boolean;
  reason: string;
}

export function writeHealthz(res: ServerResponse, health: Health, head = false): void {
  const body = health.ok ? 'ok' : `[+]ping ok\n[-]syncloop failed: ${health.reason}\nhealthz check failed\n`;
  res.writeHead(health.ok ? 200 : 500, { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' });
  res.end(head ? undefined : body);
}
