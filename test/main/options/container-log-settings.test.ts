// The container log rotation settings: upstream's defaults, the file and the
// --container-log-* flags, and upstream's checks naming the field or flag.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseFlags } from '../../../src/main/options/flags.js';
import { mergeFlags, parseKubeletConfig } from '../../../src/main/options/kubelet-config.js';

const env = { hostname: () => 'node-1' };
const header = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n';
const fromFile = (body: string) => mergeFlags(parseKubeletConfig(`${header}${body}`, 'k.yaml'), {}, env);

test('defaults are upstream v1beta1: 10Mi, 5 files, 1 worker, 10s', () => {
  assert.deepEqual(fromFile('').containerLogs, { maxSizeBytes: 10 * 1024 * 1024, maxFiles: 5, maxWorkers: 1, monitorIntervalMs: 10_000 });
});

test('the file and the flags set them, flags winning; they are acted on, not named as ignored', () => {
  const options = fromFile('containerLogMaxSize: 200Ki\ncontainerLogMaxFiles: 3\ncontainerLogMaxWorkers: 4\ncontainerLogMonitorInterval: 5s\n');
  assert.deepEqual(options.containerLogs, { maxSizeBytes: 200 * 1024, maxFiles: 3, maxWorkers: 4, monitorIntervalMs: 5_000 });
  assert.deepEqual(options.startupNotices.notActedOn, []);
  const flags = parseFlags(['--container-log-max-size=1M', '--container-log-max-files=2']);
  assert.deepEqual(mergeFlags(parseKubeletConfig(`${header}containerLogMaxSize: 200Ki\n`, 'k.yaml'), flags, env).containerLogs.maxSizeBytes, 1_000_000);
});

test('bad values are refused as upstream refuses them, naming the field or the flag', () => {
  assert.throws(() => fromFile('containerLogMaxSize: ten\n'), /k\.yaml: field "containerLogMaxSize": must be a positive resource quantity/);
  assert.throws(() => fromFile('containerLogMaxFiles: 1\n'), /field "containerLogMaxFiles": must be equal to or greater than 2/);
  assert.throws(() => fromFile('containerLogMaxWorkers: 0\n'), /field "containerLogMaxWorkers": must be equal to or greater than 1/);
  assert.throws(() => fromFile('containerLogMonitorInterval: 1s\n'), /field "containerLogMonitorInterval": must be at least 3s/);
  assert.throws(() => mergeFlags(undefined, parseFlags(['--container-log-max-files=1']), env), /invalid value for flag --container-log-max-files/);
});
