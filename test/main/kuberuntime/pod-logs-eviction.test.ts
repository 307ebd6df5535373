// Log directories of gone pods, as upstream's evictPodLogsDirectories.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { pino } from 'pino';
import { evictPodLogsDirectories, podUidOfLogsDirectory } from '../../../src/main/kuberuntime/pod-logs-eviction.js';
import type { PodGcState } from '../../../src/shared/kuberuntime/container-gc-policy.js';

test('the UID is what follows the last underscore of <namespace>_<name>_<uid>', () => {
  assert.equal(podUidOfLogsDirectory('kube-system_etcd-node_1f2e'), '1f2e');
  assert.equal(podUidOfLogsDirectory('default_my_pod_ab-cd'), 'ab-cd');
  for (const name of ['nounderscore', '_leading', 'trailing_']) assert.equal(podUidOfLogsDirectory(name), undefined, name);
});

test('directories of gone pods go with their files; live, terminated and unknown-yet pods keep theirs, and files are left alone', async () => {
  const root = mkdtempSync(join(tmpdir(), 'shardlet-pod-logs-'));
  try {
    const standing: Record<string, PodGcState> = { 'u-gone': 'gone', 'u-live': 'live', 'u-done': 'terminated' };
    for (const uid of Object.keys(standing)) {
      mkdirSync(join(root, `default_p_${uid}`, 'app'), { recursive: true });
      writeFileSync(join(root, `default_p_${uid}`, 'app', '0.log'), 'line\n');
    }
    writeFileSync(join(root, 'default_file_u-gone2'), 'not a directory');
    const removed = await evictPodLogsDirectories(root, (uid) => standing[uid] ?? 'gone', pino({ level: 'silent' }));
    assert.deepEqual(removed, ['u-gone']);
    assert.ok(!existsSync(join(root, 'default_p_u-gone')));
    assert.ok(existsSync(join(root, 'default_p_u-live', 'app', '0.log')));
    assert.ok(existsSync(join(root, 'default_p_u-done', 'app', '0.log')), 'a terminated pod a source still wants keeps its logs (kubectl logs reads them)');
    assert.ok(existsSync(join(root, 'default_file_u-gone2')));
    assert.deepEqual(await evictPodLogsDirectories(join(root, 'missing'), () => 'gone', pino({ level: 'silent' })), []);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
