// Pod cgroup figures are read at most once per cAdvisor housekeeping interval: the
// consumers that ask within it (metrics-server, /metrics/resource, eviction) share one
// read, a pod not asked for any more is forgotten, and a cgroup that cannot be read
// gives no figures.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { POD_CGROUP_SAMPLE_MAX_AGE_MS, PodCgroupSampler } from '../../../src/main/stats/pod-cgroup-sampler.js';
import type { PodCgroupSettings } from '../../../src/shared/shard-protocol.js';
import type { Pod } from '../../../src/shared/types.js';

const SETTINGS = { layout: { version: 'v2', mounts: { unified: '/sys/fs/cgroup' }, description: 'v2' }, driver: 'cgroupfs', root: [] } as PodCgroupSettings;

function pod(uid: string): Pod {
  return { metadata: { uid }, spec: { containers: [] } };
}

test('a sample is reused within the housekeeping interval and read again after it', async () => {
  let nowMs = 0;
  const reads: string[] = [];
  const sampler = new PodCgroupSampler(async (_settings, p) => {
    reads.push(p.metadata!.uid!);
    return p.metadata!.uid === 'gone' ? undefined : { timestampNs: nowMs * 1e6, workingSetBytes: nowMs };
  }, () => nowMs);
  const pods = Array.from({ length: 40 }, (_, i) => pod(`p${i}`)).concat(pod('gone'));
  const first = await sampler.samples(SETTINGS, pods);
  assert.equal(first.size, 40, 'the unreadable cgroup has no figures');
  assert.equal(reads.length, 41);
  nowMs = POD_CGROUP_SAMPLE_MAX_AGE_MS - 1;
  assert.equal((await sampler.samples(SETTINGS, pods)).get('p0')?.workingSetBytes, 0);
  assert.equal(reads.length, 41, 'nothing read again within the interval, the unreadable cgroup neither');
  nowMs = POD_CGROUP_SAMPLE_MAX_AGE_MS;
  assert.equal((await sampler.samples(SETTINGS, [pod('p0')])).get('p0')?.workingSetBytes, POD_CGROUP_SAMPLE_MAX_AGE_MS);
  assert.equal(reads.length, 42);
  assert.deepEqual([...(await sampler.samples(SETTINGS, [pod('p0')])).keys()], ['p0'], 'pods no longer asked for are forgotten');
});
