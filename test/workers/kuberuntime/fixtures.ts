// Pods and shard settings shared by the kuberuntime builder tests.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { CriCallCounts } from '../../../src/shared/cri/call-counts.js';
import type { ShardSettings } from '../../../src/shared/shard-protocol.js';
import type { Container, Pod } from '../../../src/shared/types.js';

const createdDirs: string[] = [];
after(() => createdDirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** A temp directory removed when the test file ends. */
export function makeTempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  createdDirs.push(dir);
  return dir;
}

export const POD_UID = '6f1c6c0e-8d1a-4b7e-9a55-1d2c3b4a5f60';

/** Settings rooted in a fresh temp dir, with a resolv.conf of its own. */
export function makeSettings(overrides: Partial<ShardSettings> = {}): ShardSettings {
  const base = makeTempDir('shardlet-kuberuntime-');
  const resolvConf = join(base, 'resolv.conf');
  writeFileSync(resolvConf, '# node resolver\nnameserver 10.0.0.53\nnameserver 10.0.0.54\nsearch corp.example. lab.example\noptions timeout:2 ndots:2\n');
  return {
    runtimeEndpoint: 'unix:///run/containerd/containerd.sock',
    imageEndpoint: 'unix:///run/containerd/containerd.sock',
    runtimeRequestTimeoutMs: 120_000,
    nodeName: 'node-a',
    hostIP: '192.168.1.10',
    rootDir: join(base, 'kubelet'),
    podLogsDir: join(base, 'pods-logs'),
    podPidsLimit: -1,
    clusterDNS: ['10.96.0.10'],
    clusterDomain: 'cluster.local',
    resolvConf,
    logLevel: 'silent',
    criCallCounts: new CriCallCounts().buffer,
    ...overrides,
  };
}

export function makeContainer(overrides: Partial<Container> = {}): Container {
  return { name: 'app', image: 'registry.local/busybox:1.36', ...overrides };
}

export function makePod(spec: Partial<NonNullable<Pod['spec']>> = {}, metadata: Partial<NonNullable<Pod['metadata']>> = {}): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'web-0',
      namespace: 'shop',
      uid: POD_UID,
      labels: { app: 'web' },
      annotations: { 'example.com/owner': 'team-a' },
      ...metadata,
    },
    spec: { containers: [makeContainer()], nodeName: 'node-a', ...spec },
  };
}
