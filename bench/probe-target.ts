// The probes scenario's side of the probes: a small HTTP server on the node that
// every httpGet readiness probe reaches (200 on /healthz), and the window's probe
// figures from shardlet's /stats/probes (probes per second, latency percentiles of
// the probes run in the window, from each shard's recent durations).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ProbeStats } from '../src/shared/shard-protocol.js';
import { summarize, type LatencySummary } from './stats.js';

export interface ProbeTarget {
  port: number;
  close(): Promise<void>;
}

export async function startProbeTarget(): Promise<ProbeTarget> {
  const server = http.createServer((_req, res) => res.end('ok'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Probes in the window: each shard's total before and after, and its newest durations for that many probes. */
export function steadyProbeFigures(
  before: ProbeStats[],
  after: ProbeStats[],
  windowSeconds: number,
): { perSecond: number; latency: LatencySummary; sampled: number } {
  let probes = 0;
  const durations: number[] = [];
  after.forEach((shard, index) => {
    // A replaced shard starts its count again: then all of its probes are in the window.
    const previous = before[index]?.totalProbes ?? 0;
    const inWindow = shard.totalProbes >= previous ? shard.totalProbes - previous : shard.totalProbes;
    probes += inWindow;
    durations.push(...shard.recentDurationsMs.slice(-inWindow || shard.recentDurationsMs.length));
  });
  return { perSecond: probes / windowSeconds, latency: summarize(durations), sampled: durations.length };
}
