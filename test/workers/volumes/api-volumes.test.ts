import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, realpathSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { serviceAccountTokenKey, type PodApiData, type ShardSettings } from '../../../src/shared/shard-protocol.js';
import type { Pod, Volume } from '../../../src/shared/types.js';
import { readMountInfo } from '../../../src/workers/volumes/mountinfo.js';
import { setupPodVolumes, teardownPodVolumes } from '../../../src/workers/volumes/pod-volumes.js';

const UID = '0c3e4d1a-2222-4b6f-9c8d-7e6f5a4b3c2d';
const b64 = (text: string) => Buffer.from(text).toString('base64');

const createdDirs: string[] = [];
after(() => createdDirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function settingsInTemp(): ShardSettings {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'shardlet-apivolumes-')));
  createdDirs.push(base);
  return { rootDir: join(base, 'kubelet'), podLogsDir: join(base, 'logs'), nodeName: 'node-a', hostIP: '10.0.0.5' } as ShardSettings;
}

function podWith(volumes: Volume[]): Pod {
  return {
    metadata: { name: 'web', namespace: 'shop', uid: UID, labels: { tier: 'front', app: 'web' }, annotations: { note: 'say "hi"' } },
    spec: {
      containers: [{ name: 'app', image: 'busybox', resources: { limits: { memory: '128Mi' }, requests: { cpu: '250m' } } }],
      serviceAccountName: 'builder',
      volumes,
    },
  };
}

function apiData(overrides: Partial<PodApiData> = {}): PodApiData {
  return {
    configMaps: { settings: { data: { 'app.conf': 'mode=prod\n', level: 'info' }, binaryData: { 'logo.bin': Buffer.from([0, 1, 255]).toString('base64') } } },
    secrets: { creds: { type: 'Opaque', data: { username: b64('admin'), password: b64('s3cret') } } },
    serviceAccountTokens: { [serviceAccountTokenKey('vault', 600)]: { token: 'jwt-vault', expirationTimestamp: '2030-01-01T00:00:00Z' } },
    ...overrides,
  };
}

function volumeDir(settings: ShardSettings, plugin: string, name: string): string {
  return join(settings.rootDir, 'pods', UID, 'volumes', plugin, name);
}

const read = (path: string) => readFileSync(path, 'utf8');
const modeOf = (path: string) => statSync(path).mode & 0o777;

async function isTmpfs(path: string): Promise<boolean> {
  return (await readMountInfo()).some((entry) => entry.mountPoint === path && entry.fsType === 'tmpfs');
}

function assertSetUpFails(promise: Promise<unknown>, message: string) {
  return assert.rejects(promise, (err: Error & { code?: string; details?: Record<string, unknown> }) => {
    assert.equal(err.code, 'SHARDLET_VOLUME_SETUP');
    assert.equal(err.message, message);
    assert.equal(err.details?.reason, 'FailedMount');
    return true;
  });
}

test('configMap volume: every data and binaryData key at mode 0644, then an update reaches the files', async () => {
  const settings = settingsInTemp();
  const pod = podWith([{ name: 'cfg', configMap: { name: 'settings' } }]);
  const paths = await setupPodVolumes(pod, settings, apiData());
  const dir = volumeDir(settings, 'kubernetes.io~configmap', 'cfg');
  assert.deepEqual(paths, { cfg: dir });
  assert.equal(read(join(dir, 'app.conf')), 'mode=prod\n');
  assert.equal(read(join(dir, 'level')), 'info');
  assert.deepEqual([...readFileSync(join(dir, 'logo.bin'))], [0, 1, 255]);
  assert.equal(modeOf(join(dir, 'level')), 0o644);
  assert.equal(readlinkSync(join(dir, 'level')), '..data/level');
  const firstData = readlinkSync(join(dir, '..data'));

  await setupPodVolumes(pod, settings, apiData());
  assert.equal(readlinkSync(join(dir, '..data')), firstData, 'an unchanged ConfigMap is not rewritten');

  const updated = apiData({ configMaps: { settings: { data: { 'app.conf': 'mode=canary\n' }, binaryData: {} } } });
  await setupPodVolumes(pod, settings, updated);
  assert.notEqual(readlinkSync(join(dir, '..data')), firstData);
  assert.equal(read(join(dir, 'app.conf')), 'mode=canary\n');
  assert.equal(existsSync(join(dir, 'level')), false, 'a removed key disappears');
  assert.equal(existsSync(join(dir, 'logo.bin')), false);
});

test('configMap volume: items pick keys to paths with their own modes and defaultMode', async () => {
  const settings = settingsInTemp();
  const pod = podWith([
    {
      name: 'cfg',
      configMap: {
        name: 'settings',
        defaultMode: 0o440,
        items: [{ key: 'app.conf', path: 'conf/app.conf', mode: 0o400 }, { key: 'logo.bin', path: 'logo' }],
      },
    },
  ]);
  await setupPodVolumes(pod, settings, apiData());
  const dir = volumeDir(settings, 'kubernetes.io~configmap', 'cfg');
  assert.deepEqual(readdirSync(dir).filter((name) => !name.startsWith('..')).sort(), ['conf', 'logo']);
  assert.equal(read(join(dir, 'conf/app.conf')), 'mode=prod\n');
  assert.equal(modeOf(join(dir, 'conf/app.conf')), 0o400);
  assert.equal(modeOf(join(dir, 'logo')), 0o440);
});

test('configMap volume: a missing ConfigMap or key fails with upstream messages unless optional', async () => {
  const settings = settingsInTemp();
  await assertSetUpFails(
    setupPodVolumes(podWith([{ name: 'cfg', configMap: { name: 'absent' } }]), settings, apiData({ configMaps: { absent: null } })),
    'MountVolume.SetUp failed for volume "cfg" : configmap "absent" not found',
  );
  await assertSetUpFails(
    setupPodVolumes(podWith([{ name: 'cfg', configMap: { name: 'settings', items: [{ key: 'nope', path: 'x' }] } }]), settings, apiData()),
    'MountVolume.SetUp failed for volume "cfg" : configmap references non-existent config key: nope',
  );

  const optionalPod = podWith([
    { name: 'maybe', configMap: { name: 'absent', optional: true } },
    { name: 'partial', configMap: { name: 'settings', optional: true, items: [{ key: 'nope', path: 'x' }, { key: 'level', path: 'lvl' }] } },
  ]);
  const paths = await setupPodVolumes(optionalPod, settings, apiData());
  assert.deepEqual(readdirSync(paths.maybe).filter((name) => !name.startsWith('..')), [], 'an optional absent ConfigMap is an empty volume');
  assert.deepEqual(readdirSync(paths.partial).filter((name) => !name.startsWith('..')), ['lvl']);
  await teardownPodVolumes(UID, settings);
});

test('secret volume: decoded data on a tmpfs, 0644 by default; missing secret and key errors; teardown unmounts', async () => {
  const settings = settingsInTemp();
  const pod = podWith([
    { name: 'creds', secret: { secretName: 'creds' } },
    { name: 'pw', secret: { secretName: 'creds', defaultMode: 0o400, items: [{ key: 'password', path: 'db/password' }] } },
  ]);
  const paths = await setupPodVolumes(pod, settings, apiData());
  const dir = volumeDir(settings, 'kubernetes.io~secret', 'creds');
  assert.equal(paths.creds, dir);
  assert.equal(await isTmpfs(dir), true, 'secrets never reach the node disk');
  assert.equal(read(join(dir, 'username')), 'admin');
  assert.equal(read(join(dir, 'password')), 's3cret');
  assert.equal(modeOf(join(dir, 'username')), 0o644);
  assert.equal(read(join(paths.pw, 'db/password')), 's3cret');
  assert.equal(modeOf(join(paths.pw, 'db/password')), 0o400);

  await setupPodVolumes(pod, settings, apiData());
  assert.equal((await readMountInfo()).filter((entry) => entry.mountPoint === dir).length, 1, 'no second tmpfs on a resync');

  await assertSetUpFails(
    setupPodVolumes(podWith([{ name: 's', secret: { secretName: 'later' } }]), settings, apiData()),
    'MountVolume.SetUp failed for volume "s" : secret "later" not found',
  );
  await assertSetUpFails(
    setupPodVolumes(podWith([{ name: 's', secret: { secretName: 'creds', items: [{ key: 'token', path: 't' }] } }]), settings, apiData()),
    'MountVolume.SetUp failed for volume "s" : references non-existent secret key: token',
  );
  await setupPodVolumes(podWith([{ name: 's', secret: { secretName: 'later', optional: true } }]), settings, apiData());

  await teardownPodVolumes(UID, settings);
  assert.equal(await isTmpfs(dir), false);
  assert.equal(existsSync(join(settings.rootDir, 'pods', UID)), false);
});

test('downwardAPI volume: pod fields, sorted key="value" labels and annotations, resources; no API data needed', async () => {
  const settings = settingsInTemp();
  const pod = podWith([
    {
      name: 'info',
      downwardAPI: {
        items: [
          { path: 'name', fieldRef: { fieldPath: 'metadata.name' } },
          { path: 'namespace', fieldRef: { fieldPath: 'metadata.namespace' } },
          { path: 'uid', fieldRef: { fieldPath: 'metadata.uid' } },
          { path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } },
          { path: 'annotations', fieldRef: { fieldPath: 'metadata.annotations' }, mode: 0o600 },
          { path: 'tier', fieldRef: { fieldPath: "metadata.labels['tier']" } },
          { path: 'mem_limit_mi', resourceFieldRef: { containerName: 'app', resource: 'limits.memory', divisor: '1Mi' } },
          { path: 'cpu_request_m', resourceFieldRef: { containerName: 'app', resource: 'requests.cpu', divisor: '1m' } },
        ],
      },
    },
  ]);
  const { info } = await setupPodVolumes(pod, settings);
  assert.equal(info, volumeDir(settings, 'kubernetes.io~downward-api', 'info'));
  assert.equal(read(join(info, 'name')), 'web');
  assert.equal(read(join(info, 'namespace')), 'shop');
  assert.equal(read(join(info, 'uid')), UID);
  assert.equal(read(join(info, 'labels')), 'app="web"\ntier="front"');
  assert.equal(read(join(info, 'annotations')), 'note="say \\"hi\\""');
  assert.equal(modeOf(join(info, 'annotations')), 0o600);
  assert.equal(modeOf(join(info, 'name')), 0o644);
  assert.equal(read(join(info, 'tier')), 'front');
  assert.equal(read(join(info, 'mem_limit_mi')), '128');
  assert.equal(read(join(info, 'cpu_request_m')), '250');

  const relabelled = { ...pod, metadata: { ...pod.metadata, labels: { app: 'web', tier: 'back' } } };
  await setupPodVolumes(relabelled, settings);
  assert.equal(read(join(info, 'labels')), 'app="web"\ntier="back"', 'a label change reaches the file');

  await assertSetUpFails(
    setupPodVolumes(podWith([{ name: 'bad', downwardAPI: { items: [{ path: 'x', fieldRef: { fieldPath: 'spec.bogus' } }] } }]), settings),
    'MountVolume.SetUp failed for volume "bad" : unsupported fieldPath: spec.bogus',
  );
});

test('projected volume: configMap, secret, downwardAPI and token sources merged on a tmpfs', async () => {
  const settings = settingsInTemp();
  const pod = podWith([
    {
      name: 'all',
      projected: {
        defaultMode: 0o440,
        sources: [
          { configMap: { name: 'settings', items: [{ key: 'level', path: 'config/level' }] } },
          { secret: { name: 'creds', items: [{ key: 'username', path: 'user', mode: 0o400 }] } },
          { downwardAPI: { items: [{ path: 'podname', fieldRef: { fieldPath: 'metadata.name' } }] } },
          { serviceAccountToken: { path: 'vault-token', audience: 'vault', expirationSeconds: 600 } },
          { configMap: { name: 'absent', optional: true } },
        ],
      },
    },
  ]);
  const { all } = await setupPodVolumes(pod, settings, apiData({ configMaps: { ...apiData().configMaps, absent: null } }));
  assert.equal(all, volumeDir(settings, 'kubernetes.io~projected', 'all'));
  assert.equal(await isTmpfs(all), true);
  assert.deepEqual(readdirSync(all).filter((name) => !name.startsWith('..')).sort(), ['config', 'podname', 'user', 'vault-token']);
  assert.equal(read(join(all, 'config/level')), 'info');
  assert.equal(modeOf(join(all, 'config/level')), 0o440);
  assert.equal(read(join(all, 'user')), 'admin');
  assert.equal(modeOf(join(all, 'user')), 0o400);
  assert.equal(read(join(all, 'podname')), 'web');
  assert.equal(read(join(all, 'vault-token')), 'jwt-vault');
  await teardownPodVolumes(UID, settings);
  assert.equal(await isTmpfs(all), false);
});

test('projected volume: the default token key and every failing source reported together', async () => {
  const settings = settingsInTemp();
  const tokenOnly = podWith([{ name: 'kube-api-access', projected: { sources: [{ serviceAccountToken: { path: 'token' } }] } }]);
  const data = apiData({ serviceAccountTokens: { [serviceAccountTokenKey('', 3600)]: { token: 'jwt-default', expirationTimestamp: '' } } });
  const { 'kube-api-access': dir } = await setupPodVolumes(tokenOnly, settings, data);
  assert.equal(read(join(dir, 'token')), 'jwt-default');
  assert.equal(modeOf(join(dir, 'token')), 0o644);

  const broken = podWith([
    {
      name: 'broken',
      projected: { sources: [{ configMap: { name: 'absent' } }, { secret: { name: 'creds', items: [{ key: 'nope', path: 'n' }] } }] },
    },
  ]);
  await assertSetUpFails(
    setupPodVolumes(broken, settings, apiData()),
    'MountVolume.SetUp failed for volume "broken" : [configmap "absent" not found, references non-existent secret key: nope]',
  );
  await assertSetUpFails(
    setupPodVolumes(podWith([{ name: 't', projected: { sources: [{ serviceAccountToken: { path: 'token', audience: 'x' } }] } }]), settings, apiData()),
    'MountVolume.SetUp failed for volume "t" : failed to fetch token: no token for service account shop/builder (audience "x", expirationSeconds 3600)',
  );
  await assertSetUpFails(
    setupPodVolumes(podWith([{ name: 'esc', configMap: { name: 'settings', items: [{ key: 'level', path: '../../escape' }] } }]), settings, apiData()),
    "MountVolume.SetUp failed for volume \"esc\" : invalid path: must not contain '..': ../../escape",
  );
  await teardownPodVolumes(UID, settings);
});
