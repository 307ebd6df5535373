import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ErrorCodes, ShardletError } from '../../../src/shared/errors.js';
import { parseFlags } from '../../../src/main/options/flags.js';
import { loadKubeletConfig, mergeFlags, parseKubeletConfig, resolveKubeletOptions } from '../../../src/main/options/kubelet-config.js';

const env = { hostname: () => 'Master1.kcp5-arm.iefcu.cn' };

// The OpenShift ARM master's /etc/kubernetes/kubelet.conf from the seed notes (000_*.txt).
const OPENSHIFT_KUBELET_CONF = `kind: KubeletConfiguration
apiVersion: kubelet.config.k8s.io/v1beta1
authentication:
  x509:
    clientCAFile: /etc/kubernetes/kubelet-ca.crt
  anonymous:
    enabled: false
cgroupDriver: systemd
cgroupRoot: /
clusterDNS:
  - 172.30.0.10
clusterDomain: cluster.local
containerLogMaxSize: 50Mi
maxPods: 250
kubeAPIQPS: 50
kubeAPIBurst: 100
rotateCertificates: true
serializeImagePulls: false
staticPodPath: /etc/kubernetes/manifests
systemCgroups: /system.slice
systemReserved:
  ephemeral-storage: 1Gi
`;

// A kubeadm-style file touching many more upstream fields, most of which shardlet ignores.
const KUBEADM_KUBELET_CONF = `apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
authentication:
  anonymous: { enabled: false }
  webhook: { cacheTTL: 0s, enabled: true }
  x509: { clientCAFile: /etc/kubernetes/pki/ca.crt }
authorization:
  mode: Webhook
  webhook: { cacheAuthorizedTTL: 0s, cacheUnauthorizedTTL: 0s }
cgroupDriver: systemd
clusterDNS: [10.96.0.10]
clusterDomain: cluster.local
containerRuntimeEndpint: ""
cpuManagerReconcilePeriod: 0s
evictionHard: { memory.available: 200Mi, nodefs.available: "10%" }
evictionPressureTransitionPeriod: 0s
featureGates: { GracefulNodeShutdown: true }
fileCheckFrequency: 0s
healthzBindAddress: 127.0.0.1
healthzPort: 10248
httpCheckFrequency: 0s
imageMaximumGCAge: 0s
imageMinimumGCAge: 0s
logging: { flushFrequency: 0, options: { json: { infoBufferSize: "0" } }, verbosity: 3 }
memorySwap: {}
nodeStatusReportFrequency: 0s
nodeStatusUpdateFrequency: 0s
registerWithTaints:
  - key: node-role.kubernetes.io/control-plane
    effect: NoSchedule
rotateCertificates: true
runtimeRequestTimeout: 0s
shutdownGracePeriod: 0s
shutdownGracePeriodCriticalPods: 0s
staticPodPath: /etc/kubernetes/manifests
streamingConnectionIdleTimeout: 0s
syncFrequency: 0s
systemReserved: { cpu: 1, memory: 1Gi }
tlsCipherSuites: [TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256]
volumeStatsAggPeriod: 0s
`;

function configError(code: string, ...mentions: string[]) {
  return (err: unknown) => {
    assert.ok(err instanceof ShardletError, `want a ShardletError, got ${String(err)}`);
    assert.equal(err.code, code);
    for (const text of mentions) assert.ok(err.message.includes(text), `${JSON.stringify(err.message)} mentions ${JSON.stringify(text)}`);
    return true;
  };
}

test('the OpenShift kubelet.conf from the seed loads as it is', () => {
  const options = mergeFlags(parseKubeletConfig(OPENSHIFT_KUBELET_CONF, 'kubelet.conf'), {}, env);
  assert.equal(options.maxPods, 250);
  assert.equal(options.serializeImagePulls, false);
  assert.equal(options.maxParallelImagePulls, undefined);
  assert.equal(options.staticPodPath, '/etc/kubernetes/manifests');
  assert.deepEqual(options.clusterDNS, ['172.30.0.10']);
  assert.equal(options.clusterDomain, 'cluster.local');
  assert.equal(options.cgroupDriver, 'systemd');
  assert.deepEqual(options.systemReserved, { 'ephemeral-storage': '1Gi' });
  assert.equal(options.nodeName, 'master1.kcp5-arm.iefcu.cn');
});

test('a kubeadm-shaped file with many upstream fields loads; a misspelt field is named in a lenient-decoding warning', () => {
  // Upstream decodes strictly, then leniently with a warning naming the field (it used to be refused here).
  const lenient = parseKubeletConfig(KUBEADM_KUBELET_CONF, 'kubelet.yaml');
  assert.equal(lenient.warnings?.length, 1);
  assert.match(lenient.warnings![0]!, /kubelet\.yaml: using lenient decoding as strict decoding failed: .*unknown field "containerRuntimeEndpint"/);
  assert.equal(lenient.fields.containerRuntimeEndpint, undefined);
  const fixed = KUBEADM_KUBELET_CONF.replace('containerRuntimeEndpint: ""\n', '');
  const options = mergeFlags(parseKubeletConfig(fixed, 'kubelet.yaml'), {}, env);
  // Zero durations take upstream defaults, as Go's zero-value defaulting does.
  assert.equal(options.syncFrequencyMs, 60_000);
  assert.equal(options.fileCheckFrequencyMs, 20_000);
  assert.equal(options.runtimeRequestTimeoutMs, 120_000);
  assert.equal(options.nodeStatusReportFrequencyMs, 300_000);
  assert.equal(options.volumeStatsAggPeriodMs, 60_000, 'kubeadm’s volumeStatsAggPeriod: 0s is the 1m default, not "off"');
  assert.deepEqual(options.systemReserved, { cpu: '1', memory: '1Gi' });
  assert.deepEqual(options.registerWithTaints, [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }]);
  assert.deepEqual(options.featureGates, { GracefulNodeShutdown: true });
  assert.equal(options.verbosity, 3, 'logging.verbosity is used when -v is not given');
});

test('defaults without a config file are upstream v1beta1 defaults', () => {
  const options = mergeFlags(undefined, {}, env);
  const want = {
    syncFrequencyMs: 60_000,
    fileCheckFrequencyMs: 20_000,
    httpCheckFrequencyMs: 20_000,
    maxPods: 110,
    kubeAPIQPS: 50,
    kubeAPIBurst: 100,
    serializeImagePulls: true,
    maxParallelImagePulls: undefined,
    runtimeRequestTimeoutMs: 120_000,
    nodeStatusUpdateFrequencyMs: 10_000,
    nodeStatusReportFrequencyMs: 300_000,
    nodeLeaseDurationSeconds: 40,
    podPidsLimit: -1,
    eventRecordQPS: 50,
    eventBurst: 100,
    registryPullQPS: 5,
    registryBurst: 10,
    clusterDomain: '',
    resolvConf: '/etc/resolv.conf',
    registerNode: true,
    runtimeEndpoint: 'unix:///run/containerd/containerd.sock',
    imageEndpoint: 'unix:///run/containerd/containerd.sock',
    rootDir: '/var/lib/kubelet',
    podLogsDir: '/var/log/pods',
    // Upstream's applyLegacyDefaults: without --config the read-only port stays 10255.
    readOnlyPort: 10255,
    cgroupDriver: 'cgroupfs',
    verbosity: 0,
    kubeconfig: '',
    staticPodPath: '',
  };
  for (const [key, value] of Object.entries(want)) assert.deepEqual(options[key as keyof typeof options], value, key);
  assert.ok(options.workers >= 1 && options.workers <= 8);
});

test('flags win over the file', () => {
  const file = parseKubeletConfig(OPENSHIFT_KUBELET_CONF, 'kubelet.conf');
  const flags = parseFlags([
    '--max-pods=500',
    '--pod-manifest-path=/srv/manifests',
    '--serialize-image-pulls=true',
    '--cluster-dns=10.0.0.10',
    '--sync-frequency=30s',
    '--container-runtime-endpoint=unix:///run/crio/crio.sock',
    '--hostname-override=Worker-7',
    '--workers=3',
    '--read-only-port=0',
    '-v',
    '5',
  ]);
  const options = mergeFlags(file, flags, env);
  assert.equal(options.maxPods, 500);
  assert.equal(options.staticPodPath, '/srv/manifests');
  assert.equal(options.serializeImagePulls, true);
  assert.deepEqual(options.clusterDNS, ['10.0.0.10']);
  assert.equal(options.syncFrequencyMs, 30_000);
  assert.equal(options.runtimeEndpoint, 'unix:///run/crio/crio.sock');
  assert.equal(options.imageEndpoint, 'unix:///run/crio/crio.sock');
  assert.equal(options.nodeName, 'worker-7');
  assert.equal(options.workers, 3);
  assert.equal(options.readOnlyPort, 0);
  assert.equal(options.verbosity, 5);
  assert.equal(options.clusterDomain, 'cluster.local', 'fields without a flag keep the file value');
});

test('serializeImagePulls follows maxParallelImagePulls unless set, and conflicts are refused', () => {
  const header = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n';
  const parallel = mergeFlags(parseKubeletConfig(`${header}maxParallelImagePulls: 5\n`, 'k.yaml'), {}, env);
  assert.equal(parallel.serializeImagePulls, false);
  assert.equal(parallel.maxParallelImagePulls, 5);
  const viaFlag = mergeFlags(undefined, parseFlags(['--max-parallel-image-pulls=4']), env);
  assert.equal(viaFlag.serializeImagePulls, false);
  assert.equal(mergeFlags(parseKubeletConfig(`${header}maxParallelImagePulls: 1\n`, 'k.yaml'), {}, env).serializeImagePulls, true);
  assert.throws(
    () => mergeFlags(parseKubeletConfig(`${header}serializeImagePulls: true\nmaxParallelImagePulls: 5\n`, 'k.yaml'), {}, env),
    configError(ErrorCodes.CONFIG_INVALID, 'k.yaml: field "maxParallelImagePulls"', 'serializeImagePulls'),
  );
  assert.throws(
    () => mergeFlags(parseKubeletConfig(`${header}serializeImagePulls: true\n`, 'k.yaml'), parseFlags(['--max-parallel-image-pulls=5']), env),
    configError(ErrorCodes.FLAG_INVALID, '--max-parallel-image-pulls'),
  );
});

test('structural problems name the file and the field path', () => {
  const header = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n';
  const cases: Array<{ body: string; mentions: string[] }> = [
    { body: 'maxPods: many\n', mentions: ['field "maxPods": must be an integer'] },
    { body: 'maxPods: 1.5\n', mentions: ['field "maxPods": must be an integer'] },
    { body: 'serializeImagePulls: "no"\n', mentions: ['field "serializeImagePulls": must be true or false'] },
    { body: 'syncFrequency: 10\n', mentions: ['field "syncFrequency": must be a duration'] },
    { body: 'syncFrequency: 1 minute\n', mentions: ['field "syncFrequency": must be a duration'] },
    { body: 'clusterDNS: 10.0.0.10\n', mentions: ['field "clusterDNS": must be a list'] },
    { body: 'featureGates: { Foo: "yes" }\n', mentions: ['field "featureGates.Foo": must be true or false'] },
  ];
  for (const { body, mentions } of cases) {
    assert.throws(() => parseKubeletConfig(header + body, 'kubelet.yaml'), configError(ErrorCodes.CONFIG_INVALID, 'kubelet.yaml: ', ...mentions), body);
  }
  // Unknown fields, at any depth, are warnings of the lenient pass (upstream), not errors.
  const unknown = [
    { body: 'maxPodz: 10\n', field: 'maxPodz' },
    { body: 'authentication:\n  x509:\n    clientCaFile: /ca.crt\n', field: 'authentication.x509.clientCaFile' },
    { body: 'registerWithTaints:\n  - key: a\n    effect: NoSchedule\n    effct: NoSchedule\n', field: 'registerWithTaints[0].effct' },
  ];
  for (const { body, field } of unknown) {
    const file = parseKubeletConfig(header + body, 'kubelet.yaml');
    assert.match(file.warnings?.join('\n') ?? '', new RegExp(`kubelet\\.yaml: .*unknown field "${field.replace(/[.[\]]/g, '\\$&')}"`), body);
  }
  assert.throws(() => parseKubeletConfig('kind: KubeletConfiguration\n', 'kubelet.yaml'), configError(ErrorCodes.CONFIG_INVALID, 'field "apiVersion"'));
  assert.throws(() => parseKubeletConfig('apiVersion: v1\nkind: Pod\n', 'kubelet.yaml'), configError(ErrorCodes.CONFIG_INVALID, 'field "apiVersion"'));
  assert.throws(() => parseKubeletConfig(`${header}maxPods: 1\nmaxPods: 2\n`, 'kubelet.yaml'), configError(ErrorCodes.CONFIG_INVALID, 'kubelet.yaml'));
  assert.throws(() => parseKubeletConfig('maxPods: [\n', 'kubelet.yaml'), configError(ErrorCodes.CONFIG_INVALID, 'kubelet.yaml: invalid YAML'));
});

test('bad values name the file and the field', () => {
  const header = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n';
  const cases: Array<{ body: string; field: string; reason: string }> = [
    { body: 'maxPods: -1\n', field: 'maxPods', reason: 'must be an integer >= 0' },
    { body: 'syncFrequency: -1s\n', field: 'syncFrequency', reason: 'must be a positive duration' },
    { body: 'fileCheckFrequency: -20s\n', field: 'fileCheckFrequency', reason: 'must be a positive duration' },
    { body: 'kubeAPIQPS: -5\n', field: 'kubeAPIQPS', reason: 'must be an integer >= 0' },
    { body: 'readOnlyPort: 70000\n', field: 'readOnlyPort', reason: 'must be an integer from 0 to 65535' },
    { body: 'maxParallelImagePulls: 0\nserializeImagePulls: false\n', field: 'maxParallelImagePulls', reason: 'must be an integer >= 1' },
    { body: 'nodeLeaseDurationSeconds: -40\n', field: 'nodeLeaseDurationSeconds', reason: 'must be greater than 0' },
    { body: 'systemCgroups: /system.slice\n', field: 'systemCgroups', reason: 'requires cgroupRoot' },
    { body: 'cgroupDriver: upstart\n', field: 'cgroupDriver', reason: 'must be one of' },
    { body: 'clusterDNS: [dns.example]\n', field: 'clusterDNS', reason: 'is not an IP address' },
    { body: 'registerWithTaints:\n  - key: a\n    effect: Sometimes\n', field: 'registerWithTaints[0]', reason: 'effect' },
    { body: 'imageGCLowThresholdPercent: 90\n', field: 'imageGCLowThresholdPercent', reason: 'must be less than' },
    { body: 'enforceNodeAllocatable: [pods, everything]\n', field: 'enforceNodeAllocatable', reason: 'invalid option "everything"' },
    { body: 'enforceNodeAllocatable: [none, pods]\n', field: 'enforceNodeAllocatable', reason: '"none" cannot be combined' },
    { body: 'cgroupsPerQOS: false\n', field: 'enforceNodeAllocatable', reason: 'unless cgroupsPerQOS' },
    { body: 'evictionSoft: {memory.available: 1Gi}\n', field: 'evictionSoft.memory.available', reason: 'grace period must be specified' },
    { body: 'evictionSoft: {memory.available: 1Gi}\nevictionSoftGracePeriod: {memory.available: soon}\n', field: 'evictionSoftGracePeriod.memory.available', reason: 'invalid duration' },
  ];
  for (const { body, field, reason } of cases) {
    const file = parseKubeletConfig(header + body, 'kubelet.yaml');
    assert.throws(() => mergeFlags(file, {}, env), configError(ErrorCodes.CONFIG_INVALID, `kubelet.yaml: field "${field}": `, reason), body);
  }
  assert.throws(() => mergeFlags(undefined, parseFlags(['--sync-frequency=-1s']), env), configError(ErrorCodes.FLAG_INVALID, '--sync-frequency', 'positive'));
});

test('a duration means the same from the file and from its flag: 0 is the default, a negative value is refused', () => {
  const header = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n';
  const cases = [
    { field: 'syncFrequency', flag: 'sync-frequency', key: 'syncFrequencyMs', defaultMs: 60_000 },
    { field: 'fileCheckFrequency', flag: 'file-check-frequency', key: 'fileCheckFrequencyMs', defaultMs: 20_000 },
    { field: 'httpCheckFrequency', flag: 'http-check-frequency', key: 'httpCheckFrequencyMs', defaultMs: 20_000 },
    { field: 'runtimeRequestTimeout', flag: 'runtime-request-timeout', key: 'runtimeRequestTimeoutMs', defaultMs: 120_000 },
  ] as const;
  for (const { field, flag, key, defaultMs } of cases) {
    const fromFile = mergeFlags(parseKubeletConfig(`${header}${field}: 0s\n`, 'k.yaml'), {}, env);
    const fromFlag = mergeFlags(undefined, parseFlags([`--${flag}=0s`]), env);
    assert.equal(fromFile[key], defaultMs, `${field}: 0s in the file`);
    assert.equal(fromFlag[key], defaultMs, `--${flag}=0s`);
    const overFile = mergeFlags(parseKubeletConfig(`${header}${field}: 5s\n`, 'k.yaml'), parseFlags([`--${flag}=0s`]), env);
    assert.equal(overFile[key], defaultMs, `--${flag}=0s over the file's 5s`);
    assert.throws(() => mergeFlags(parseKubeletConfig(`${header}${field}: -1s\n`, 'k.yaml'), {}, env), configError(ErrorCodes.CONFIG_INVALID, `field "${field}"`, 'positive'));
    assert.throws(() => mergeFlags(undefined, parseFlags([`--${flag}=-1s`]), env), configError(ErrorCodes.FLAG_INVALID, `--${flag}`, 'positive'));
  }
});

test("upstream's duration rules for the fields only the file sets", () => {
  const header = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n';
  const cases = [
    { body: 'imageMinimumGCAge: -1m\n', field: 'imageMinimumGCAge', reason: 'must not be negative' },
    { body: 'imageMaximumGCAge: 1m\n', field: 'imageMaximumGCAge', reason: 'greater than imageMinimumGCAge' },
    { body: 'shutdownGracePeriod: 500ms\n', field: 'shutdownGracePeriod', reason: '>= 1s' },
    { body: 'shutdownGracePeriod: 10s\nshutdownGracePeriodCriticalPods: 20s\n', field: 'shutdownGracePeriodCriticalPods', reason: '<= shutdownGracePeriod' },
    { body: 'containerLogMonitorInterval: 1s\n', field: 'containerLogMonitorInterval', reason: 'at least 3s' },
  ];
  for (const { body, field, reason } of cases) {
    assert.throws(() => mergeFlags(parseKubeletConfig(header + body, 'k.yaml'), {}, env), configError(ErrorCodes.CONFIG_INVALID, `k.yaml: field "${field}": `, reason), body);
  }
  assert.doesNotThrow(() => mergeFlags(parseKubeletConfig(`${header}imageMaximumGCAge: 1h\nshutdownGracePeriod: 30s\nshutdownGracePeriodCriticalPods: 10s\n`, 'k.yaml'), {}, env));
});

test('the config file gets the manifest decoder limits: deep nesting, alias bombs and binary are refused with the file named', () => {
  const header = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n';
  const bomb = ['a: &a [x, x, x, x, x, x, x, x, x]', ...'bcdefgh'.split('').map((name, index) => `${name}: &${name} [${Array(9).fill(`*${'abcdefgh'[index]}`).join(', ')}]`)];
  const cases = [
    { text: `${header}logging: ${'['.repeat(150)}${']'.repeat(150)}\n`, mentions: 'nested more than' },
    { text: `${header}featureGates:\n  x: true\nlogging:\n  ${bomb.join('\n  ')}\n`, mentions: 'alias' },
    { text: `${header}logging: &l {a: *l}\n`, mentions: 'nested more than' },
    { text: `${header}staticPodPath: a\u0000b\n`, mentions: 'control character' },
  ];
  for (const { text, mentions } of cases) {
    assert.throws(() => parseKubeletConfig(text, 'kubelet.yaml'), configError(ErrorCodes.CONFIG_INVALID, 'kubelet.yaml: ', mentions), text.slice(0, 80));
  }
});

test('other defaulting rules of upstream', () => {
  const header = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n';
  const load = (body: string) => mergeFlags(parseKubeletConfig(header + body, 'k.yaml'), {}, env);
  assert.equal(load('nodeStatusUpdateFrequency: 4s\n').nodeStatusReportFrequencyMs, 4_000, 'report frequency follows an explicit update frequency');
  assert.equal(load('podPidsLimit: -7\n').podPidsLimit, -1);
  assert.equal(load('podPidsLimit: 4096\n').podPidsLimit, 4096);
  assert.equal(load('kubeAPIQPS: 0\n').kubeAPIQPS, 0, 'pointer fields keep an explicit 0');
  assert.equal(load('maxPods: 0\n').maxPods, 110, 'non-pointer fields default a 0');
  assert.equal(load('resolvConf: ""\n').resolvConf, '', 'an explicit empty resolvConf disables DNS, as upstream');
  assert.equal(load('readOnlyPort: 0\n').readOnlyPort, 0);
  assert.equal(load('imageServiceEndpoint: unix:///run/img.sock\n').imageEndpoint, 'unix:///run/img.sock');
  assert.deepEqual(load('staticPodURL: http://cfg/pods\nstaticPodURLHeader:\n  Authorization: [Bearer x]\n').staticPodURLHeader, { Authorization: ['Bearer x'] });
  assert.equal(load('syncFrequency: 1m30s\n').syncFrequencyMs, 90_000);
  assert.equal(load('maxPods:\n').maxPods, 110, 'a YAML null is unset');
});

test('JSON files load; a missing file names its path; --config is read', async () => {
  const json = JSON.stringify({ apiVersion: 'kubelet.config.k8s.io/v1beta1', kind: 'KubeletConfiguration', maxPods: 42 });
  assert.equal(mergeFlags(parseKubeletConfig(json, 'k.json'), {}, env).maxPods, 42);
  const dir = await mkdtemp(join(tmpdir(), 'shardlet-config-'));
  try {
    const path = join(dir, 'kubelet.yaml');
    await assert.rejects(loadKubeletConfig(path), configError(ErrorCodes.CONFIG_INVALID, path));
    await writeFile(path, OPENSHIFT_KUBELET_CONF);
    const options = await resolveKubeletOptions(parseFlags(['--config', path, '--max-pods=300']), env);
    assert.equal(options.maxPods, 300);
    assert.equal(options.configFile, path);
    assert.equal(options.staticPodPath, '/etc/kubernetes/manifests');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('the node name is the lowercased override or host name, and must be a DNS name', () => {
  assert.equal(mergeFlags(undefined, {}, { hostname: () => ' Node-A ' }).nodeName, 'node-a');
  assert.throws(() => mergeFlags(undefined, {}, { hostname: () => 'bad_host' }), configError(ErrorCodes.FLAG_INVALID, '--hostname-override'));
  assert.throws(() => mergeFlags(undefined, { hostnameOverride: 'a b' }, env), configError(ErrorCodes.FLAG_INVALID, '--hostname-override'));
});

test('volumeStatsAggPeriod: a minute by default, the file’s or the flag’s period, negative turns volume stats off', () => {
  const header = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n';
  assert.equal(mergeFlags(undefined, {}, env).volumeStatsAggPeriodMs, 60_000);
  assert.equal(mergeFlags(parseKubeletConfig(`${header}volumeStatsAggPeriod: 2m\n`, 'k.yaml'), {}, env).volumeStatsAggPeriodMs, 120_000);
  assert.equal(mergeFlags(parseKubeletConfig(`${header}volumeStatsAggPeriod: -1s\n`, 'k.yaml'), {}, env).volumeStatsAggPeriodMs, -1000);
  const viaFlag = mergeFlags(undefined, parseFlags(['--volume-stats-agg-period=5s']), env);
  assert.equal(viaFlag.volumeStatsAggPeriodMs, 5000);
  assert.deepEqual(viaFlag.startupNotices.notActedOn, [], 'no longer named as accepted but not acted on');
});
