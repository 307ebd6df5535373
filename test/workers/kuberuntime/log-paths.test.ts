// The restart count read off a container's log files, as upstream's calcRestartCountByLogDir.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { restartCountFromLogs } from '../../../src/workers/kuberuntime/log-paths.js';

test('one more than the highest <n>.log, rotated files counted, anything else ignored; 0 with no directory or no log', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'shardlet-log-paths-'));
  try {
    assert.equal(await restartCountFromLogs(join(dir, 'missing')), 0);
    const logs = join(dir, 'app');
    mkdirSync(logs);
    assert.equal(await restartCountFromLogs(logs), 0);
    for (const name of ['0.log', '2.log', '7.log.20261124-101500.gz', '12.logx', 'notes.log', '9.txt']) writeFileSync(join(logs, name), '');
    assert.equal(await restartCountFromLogs(logs), 8);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
