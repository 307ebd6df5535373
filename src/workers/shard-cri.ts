// The CRI connection a shard or the relister opens from its settings: its own
// channel, counted in the node-wide call counters the main thread shares.
import { CriCallCounts } from '../shared/cri/call-counts.js';
import { CriClient } from '../shared/cri/client.js';
import type { ShardSettings } from '../shared/shard-protocol.js';

export function openShardCri(settings: ShardSettings): CriClient {
  return new CriClient(settings.runtimeEndpoint, {
    timeoutMs: settings.runtimeRequestTimeoutMs,
    imageEndpoint: settings.imageEndpoint,
    callCounts: new CriCallCounts(settings.criCallCounts),
  });
}
