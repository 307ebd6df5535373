// The pod and container log paths, whose parts are the pod's own strings, and the
// restart count read off a container's log files, as upstream's calcRestartCountByLogDir.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import { pino } from 'pino';
import { ErrorCodes } from '../../../src/shared/errors.js';
import { podUidOfLogsDirectory } from '../../../src/main/kuberuntime/pod-logs-eviction.js';
import { containerLogPath, containerLogsDirectory, podLogsDirectory, restartCountFromLogs } from '../../../src/workers/kuberuntime/log-paths.js';
import { removePodLogsDirectory } from '../../../src/workers/kuberuntime/pod-logs-cleanup.js';
import type { RuntimeDeps } from '../../../src/workers/kuberuntime/runtime-deps.js';
import { hostilePathString } from '../../helpers/path-arbitraries.js';
import { makeSettings } from './fixtures.js';

const LOGS = '/var/log/pods';
const UID = '6f1c6c0e-8d1a-4b7e-9a55-1d2c3b4a5f60';
const unsafe = { code: ErrorCodes.PATH_UNSAFE };

test('the pod log directory refuses a namespace, name or UID that is not one segment, and a UID with the GC separator', () => {
  assert.equal(podLogsDirectory(LOGS, 'shop', 'web-0', UID), `${LOGS}/shop_web-0_${UID}`);
  assert.throws(() => podLogsDirectory(LOGS, 'default', 't', 'x/../../../../../../../../../../tmp/victim'), { ...unsafe, message: /^metadata\.uid: / });
  assert.throws(() => podLogsDirectory(LOGS, '../../etc', 'web-0', UID), { ...unsafe, message: /^metadata\.namespace: / });
  assert.throws(() => podLogsDirectory(LOGS, '..', 'web-0', UID), { ...unsafe, message: /^metadata\.namespace: / });
  assert.throws(() => podLogsDirectory(LOGS, 'shop', 'a/b', UID), { ...unsafe, message: /^metadata\.name: / });
  assert.throws(() => podLogsDirectory(LOGS, 'shop', 'web-0', ''), { ...unsafe, message: /^metadata\.uid: / });
  // <ns>_<name>_other_<uid-of-a-live-pod>: the log GC would read the live pod's UID and remove its logs.
  assert.throws(() => podLogsDirectory(LOGS, 'shop', 'web-0', `other_${UID}`), { ...unsafe, message: /must not contain '_'/ });
  assert.throws(() => podLogsDirectory(LOGS, 'shop', 'web-0', 'a'.repeat(300)), { ...unsafe, message: /no more than 255 bytes/ });
});

test('container log paths refuse a container name that is not one segment', () => {
  const podDirectory = podLogsDirectory(LOGS, 'shop', 'web-0', UID);
  assert.equal(containerLogsDirectory(podDirectory, 'app'), `${podDirectory}/app`);
  assert.equal(containerLogPath('app', 3), 'app/3.log');
  for (const name of ['..', '../../../../etc/cron.d', 'a/b', '', '.']) {
    assert.throws(() => containerLogsDirectory(podDirectory, name), { ...unsafe, message: /^container name: / }, JSON.stringify(name));
    assert.throws(() => containerLogPath(name, 0), { ...unsafe, message: /^container name: / }, JSON.stringify(name));
  }
});

test('property: an accepted pod log directory is a direct child of the log root, and the log GC reads its UID back', () => {
  fc.assert(
    fc.property(hostilePathString, hostilePathString, hostilePathString, (namespace, name, uid) => {
      let directory: string;
      try {
        directory = podLogsDirectory(LOGS, namespace, name, uid);
      } catch (err) {
        assert.equal((err as { code?: string }).code, ErrorCodes.PATH_UNSAFE);
        return;
      }
      assert.equal(dirname(directory), LOGS);
      assert.equal(podUidOfLogsDirectory(directory.slice(LOGS.length + 1)), uid);
    }),
    { numRuns: 1_000 },
  );
});

test('removing the log directory of a pod whose names would climb out removes nothing', async () => {
  const settings = makeSettings();
  const base = dirname(settings.podLogsDir);
  mkdirSync(join(base, 'victim'), { recursive: true });
  writeFileSync(join(base, 'victim', 'keep'), 'outside the log dir');
  mkdirSync(join(settings.podLogsDir, 'shop_web-0_x'), { recursive: true });
  const deps = { settings, logger: pino({ level: 'silent' }) } as unknown as RuntimeDeps;
  // <logs>/shop_web-0_x/../../victim is <base>/victim.
  await removePodLogsDirectory(deps, { uid: 'x/../../victim', name: 'web-0', namespace: 'shop' });
  assert.equal(readFileSync(join(base, 'victim', 'keep'), 'utf8'), 'outside the log dir');
  assert.ok(existsSync(settings.podLogsDir));
});

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
