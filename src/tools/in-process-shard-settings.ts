// Dev tooling shared by tests and the bench: ShardSettings for a shard run in this
// process against a runtime socket, with the pod and log directories under a work
// directory.
import { join } from 'node:path';
import { CriCallCounts } from '../shared/cri/call-counts.js';
import type { ShardSettings } from '../shared/shard-protocol.js';

export function inProcessShardSettings(endpoint: string, workDir: string, overrides: Partial<ShardSettings> = {}): ShardSettings {
  return {
    runtimeEndpoint: endpoint,
    imageEndpoint: endpoint,
    runtimeRequestTimeoutMs: 10_000,
    nodeName: 'n1',
    hostIP: '10.0.0.1',
    rootDir: join(workDir, 'root'),
    podLogsDir: join(workDir, 'logs'),
    podPidsLimit: -1,
    clusterDNS: [],
    clusterDomain: 'cluster.local',
    resolvConf: '',
    logLevel: 'silent',
    criCallCounts: new CriCallCounts().buffer,
    ...overrides,
  };
}
