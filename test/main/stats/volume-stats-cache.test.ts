// The volume stats cache as upstream's fsResourceAnalyzer: every volume the kubelet
// keeps under its root dir is measured when its pod is first seen and again once
// volumeStatsAggPeriod (with jitter) has passed, never on a summary request; pods
// gone are forgotten; a volume that cannot be measured leaves the others measured.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { pino } from 'pino';
import { VolumeStatsCache } from '../../../src/main/stats/volume-stats-cache.js';
import type { Pod } from '../../../src/shared/types.js';

const UID = 'uid-vol';
const PERIOD_MS = 60_000;
const POD: Pod = {
  metadata: { name: 'web', namespace: 'default', uid: UID },
  spec: {
    containers: [{ name: 'main', image: 'busybox' }],
    volumes: [
      { name: 'cache', emptyDir: {} },
      { name: 'scratch', emptyDir: { medium: 'Memory' } },
      { name: 'settings', configMap: { name: 'cm' } },
      { name: 'creds', secret: { secretName: 's' } },
      { name: 'token', projected: { sources: [] } },
      { name: 'labels', downwardAPI: { items: [] } },
      { name: 'host', hostPath: { path: '/var/log' } },
    ],
  },
};

function volumeDir(rootDir: string, plugin: string, name: string): string {
  const dir = join(rootDir, 'pods', UID, 'volumes', plugin, name);
  mkdirSync(dir, { recursive: true });
  return dir;
}

function setUp() {
  const rootDir = mkdtempSync(join(tmpdir(), 'shardlet-volstats-'));
  writeFileSync(join(volumeDir(rootDir, 'kubernetes.io~empty-dir', 'cache'), 'data'), Buffer.alloc(64 * 1024, 1));
  volumeDir(rootDir, 'kubernetes.io~empty-dir', 'scratch');
  writeFileSync(join(volumeDir(rootDir, 'kubernetes.io~configmap', 'settings'), 'key'), 'value');
  volumeDir(rootDir, 'kubernetes.io~secret', 'creds');
  volumeDir(rootDir, 'kubernetes.io~downward-api', 'labels');
  // The projected volume's directory is not set up yet: no entry, no warning.
  let nowMs = 1_000_000;
  let pods = [POD];
  const warnings: string[] = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => warnings.push(line) });
  const cache = new VolumeStatsCache({ rootDir, periodMs: PERIOD_MS, pods: () => pods, logger, random: () => 0, nowMs: () => nowMs });
  return {
    rootDir, cache, warnings,
    advance: (ms: number) => (nowMs += ms),
    setPods: (next: Pod[]) => (pods = next),
  };
}

test('every kubelet-kept volume of a pod is measured on first sight; local ephemeral ones apart, hostPath never', async () => {
  const { cache } = setUp();
  assert.equal(cache.get(UID), undefined, 'nothing before the first measurement');
  await cache.refresh();
  const stats = cache.get(UID)!;
  assert.deepEqual(stats.localEphemeral.map((v) => v.name), ['cache', 'settings', 'labels']);
  assert.deepEqual(stats.other.map((v) => v.name), ['scratch', 'creds']);
  const cacheVolume = stats.localEphemeral[0];
  assert.ok(cacheVolume.usedBytes! >= 64 * 1024, `the emptyDir holds its 64 KiB file (${cacheVolume.usedBytes})`);
  assert.equal(cacheVolume.inodesUsed, 2);
  for (const key of ['time', 'availableBytes', 'capacityBytes', 'usedBytes', 'inodesFree', 'inodes', 'inodesUsed']) assert.ok(key in cacheVolume, key);
});

test('figures are kept for volumeStatsAggPeriod, then measured again; a pod gone is forgotten', async () => {
  const { rootDir, cache, advance, setPods } = setUp();
  await cache.refresh();
  const before = cache.get(UID)!.localEphemeral[0].usedBytes!;
  writeFileSync(join(rootDir, 'pods', UID, 'volumes', 'kubernetes.io~empty-dir', 'cache', 'more'), Buffer.alloc(256 * 1024, 1));
  advance(PERIOD_MS - 1);
  await cache.refresh();
  assert.equal(cache.get(UID)!.localEphemeral[0].usedBytes, before, 'not measured again within the period');
  advance(1);
  await cache.refresh();
  assert.ok(cache.get(UID)!.localEphemeral[0].usedBytes! >= before + 256 * 1024);
  setPods([]);
  await cache.refresh();
  assert.equal(cache.get(UID), undefined);
});

test('a volume that cannot be measured is named once in the log and left out; the others are measured', async () => {
  const { rootDir, cache, warnings, advance } = setUp();
  const secretDir = join(rootDir, 'pods', UID, 'volumes', 'kubernetes.io~secret');
  // The secret volume's directory replaced by a symlink to the host's root.
  const { rmSync } = await import('node:fs');
  rmSync(join(secretDir, 'creds'), { recursive: true });
  symlinkSync('/', join(secretDir, 'creds'));
  await cache.refresh();
  assert.deepEqual(cache.get(UID)!.other.map((v) => v.name), ['scratch']);
  advance(PERIOD_MS);
  await cache.refresh();
  assert.equal(warnings.filter((line) => line.includes('"volume":"creds"')).length, 1);
});

test('a negative volumeStatsAggPeriod turns volume stats off', async () => {
  const rootDir = mkdtempSync(join(tmpdir(), 'shardlet-volstats-'));
  const cache = new VolumeStatsCache({ rootDir, periodMs: -1, pods: () => [POD], logger: pino({ level: 'silent' }) });
  cache.start();
  await new Promise((resolve) => setImmediate(resolve));
  cache.stop();
  assert.equal(cache.get(UID), undefined);
});
