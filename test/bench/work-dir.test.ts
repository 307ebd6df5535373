// A run's work directory is removed whole, however deep, many entries at a time.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { removeWorkDir } from '../../bench/work-dir.js';

test('removes the pod directories, files at every depth and links, then the directory itself', async () => {
  const workDir = mkdtempSync(join(tmpdir(), 'shardlet-work-dir-test-'));
  const outside = mkdtempSync(join(tmpdir(), 'shardlet-work-dir-outside-'));
  writeFileSync(join(outside, 'kept'), 'x');
  writeFileSync(join(workDir, 'kubelet-config.json'), '{}');
  for (let i = 0; i < 50; i++) {
    const volume = join(workDir, 'root', 'pods', `uid-${i}`, 'volumes', 'kubernetes.io~empty-dir', 'data');
    mkdirSync(volume, { recursive: true });
    writeFileSync(join(volume, 'file'), 'x');
    mkdirSync(join(workDir, 'pod-logs', `bench_pod-${i}_uid-${i}`, 'app'), { recursive: true });
    writeFileSync(join(workDir, 'pod-logs', `bench_pod-${i}_uid-${i}`, 'app', '0.log'), 'x');
  }
  // A link out of the work directory goes, what it points at stays.
  symlinkSync(outside, join(workDir, 'root', 'pods', 'uid-0', 'link'));
  await removeWorkDir(workDir);
  assert.equal(existsSync(workDir), false);
  assert.equal(existsSync(join(outside, 'kept')), true);
  await removeWorkDir(outside);
  await removeWorkDir(workDir); // already gone: nothing to do
});
