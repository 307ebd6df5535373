// The drop-in command line: upstream's flags, --config-dir, lenient decoding,
// v1beta1 defaults and validation, and what start-up reports about them.
import assert from 'node:assert/strict';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ErrorCodes, ShardletError } from '../../../src/shared/errors.js';
import { helpText, parseFlags } from '../../../src/main/options/flags.js';
import { mergeFlags, parseKubeletConfig, resolveKubeletOptions } from '../../../src/main/options/kubelet-config.js';
import { UPSTREAM_FLAGS } from '../../../src/main/options/upstream-flags.js';
import { kubeletVersion } from '../../../src/main/version.js';

const env = { hostname: () => 'node-a' };
const HEADER = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n';
const SAMPLE_BY_TYPE = { string: 'x', bool: 'true', int: '3', float: '0.5', duration: '90s', strings: 'a,b', map: 'cpu=1', eviction: 'memory.available<1Gi' };

function fails(code: string, ...mentions: string[]) {
  return (err: unknown) => err instanceof ShardletError && err.code === code && mentions.every((text) => err.message.includes(text));
}

test('every upstream flag is accepted with its type; a config flag sets its field', () => {
  for (const flag of UPSTREAM_FLAGS) {
    const raw = flag.name === 'feature-gates' ? 'NodeSwap=true' : SAMPLE_BY_TYPE[flag.type];
    assert.doesNotThrow(() => parseFlags([`--${flag.name}=${raw}`]), flag.name);
  }
  const flags = parseFlags(['--eviction-hard=memory.available<1Gi,nodefs.available<5%', '--anonymous-auth=false', '--system-reserved=cpu=500m,memory=1Gi', '--pod-max-pids=100']);
  const options = mergeFlags(undefined, flags, env);
  assert.deepEqual(options.evictionHard, { 'memory.available': '1Gi', 'nodefs.available': '5%' });
  assert.deepEqual(options.systemReserved, { cpu: '500m', memory: '1Gi' });
  assert.equal(options.podPidsLimit, 100);
  assert.throws(() => parseFlags(['--port=many']), fails(ErrorCodes.FLAG_INVALID, '--port'));
});

test('a deprecated flag gives upstream\'s deprecation line once, however often it is given', () => {
  const flags = parseFlags(['--max-pods=10', '--max-pods=20', '--minimum-container-ttl-duration=6m', '--kubeconfig=/k']);
  assert.deepEqual(flags.deprecations?.map((entry) => entry.message), [
    "Flag --max-pods has been deprecated, This parameter should be set via the config file specified by the Kubelet's --config flag. See https://kubernetes.io/docs/tasks/administer-cluster/kubelet-config-file/ for more information.",
    'Flag --minimum-container-ttl-duration has been deprecated, Use --eviction-hard or --eviction-soft instead. Will be removed in a future version.',
  ]);
  assert.deepEqual(mergeFlags(undefined, flags, env).startupNotices.deprecations.length, 2);
});

test('feature gates: known names parse, an unknown one is an error from the flag and from the file', () => {
  const options = mergeFlags(undefined, parseFlags(['--feature-gates=NodeSwap=true,EventedPLEG=false']), env);
  assert.deepEqual(options.featureGates, { NodeSwap: true, EventedPLEG: false });
  assert.throws(() => parseFlags(['--feature-gates=NoSuchGate=true']), fails(ErrorCodes.FLAG_INVALID, '--feature-gates', 'unrecognized feature gate: NoSuchGate'));
  const file = parseKubeletConfig(`${HEADER}featureGates:\n  NoSuchGate: true\n`, 'k.yaml');
  assert.throws(() => mergeFlags(file, {}, env), fails(ErrorCodes.CONFIG_INVALID, 'k.yaml: field "featureGates"', 'unrecognized feature gate: NoSuchGate'));
});

test('v1beta1 defaults with a --config file; the legacy read-only port without one', () => {
  const options = mergeFlags(parseKubeletConfig(HEADER, 'k.yaml'), {}, env);
  assert.equal(options.readOnlyPort, 0, 'readOnlyPort is 0 when the file omits it');
  assert.deepEqual(options.evictionHard, { 'memory.available': '100Mi', 'nodefs.available': '10%', 'nodefs.inodesFree': '5%', 'imagefs.available': '15%', 'imagefs.inodesFree': '5%' });
  assert.equal(mergeFlags(undefined, {}, env).readOnlyPort, 10255);
  assert.equal(mergeFlags(parseKubeletConfig(`${HEADER}evictionHard:\n  memory.available: 1Gi\n`, 'k.yaml'), {}, env).evictionHard['nodefs.available'], undefined, 'a set map replaces the default');
});

test('eviction thresholds are validated as upstream, naming the field or the flag', () => {
  const file = parseKubeletConfig(`${HEADER}evictionHard: {memory.available: lots}\n`, 'k.yaml');
  assert.throws(() => mergeFlags(file, {}, env), fails(ErrorCodes.CONFIG_INVALID, 'k.yaml: field "evictionHard.memory.available"', '"lots"'));
  const signal = parseKubeletConfig(`${HEADER}evictionHard: {memory.free: 1Gi}\n`, 'k.yaml');
  assert.throws(() => mergeFlags(signal, {}, env), fails(ErrorCodes.CONFIG_INVALID, 'evictionHard.memory.free', 'unsupported eviction signal'));
  assert.throws(() => mergeFlags(undefined, parseFlags(['--eviction-hard=memory.available<lots']), env), fails(ErrorCodes.FLAG_INVALID, '--eviction-hard'));
});

test("kind's file with metadata loads, with one lenient-decoding warning naming the field", () => {
  const file = parseKubeletConfig(`${HEADER}metadata:\n  name: config\nmaxPods: 20\n`, 'config.yaml');
  const options = mergeFlags(file, {}, env);
  assert.equal(options.maxPods, 20);
  assert.deepEqual(options.startupNotices.decodeWarnings, ['config.yaml: using lenient decoding as strict decoding failed: strict decoding error: unknown field "metadata"']);
});

test('--config-dir: *.conf drop-ins in lexical order over --config, maps merged, lists replaced; flags win', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'shardlet-dropins-'));
  try {
    const configFile = join(dir, 'kubelet.yaml');
    await writeFile(configFile, `${HEADER}maxPods: 10\nclusterDNS: [10.0.0.1, 10.0.0.2]\nsystemReserved: {cpu: 100m}\nclusterDomain: base.local\n`);
    await mkdir(join(dir, 'conf.d'));
    await writeFile(join(dir, 'conf.d', '20-second.conf'), `${HEADER}maxPods: 30\nsystemReserved: {memory: 1Gi}\n`);
    await writeFile(join(dir, 'conf.d', '10-first.conf'), `${HEADER}maxPods: 20\nclusterDNS: [10.0.0.9]\nclusterDomain: first.local\n`);
    await writeFile(join(dir, 'conf.d', '30-ignored.yaml'), `${HEADER}maxPods: 99\n`);
    const options = await resolveKubeletOptions(parseFlags(['--config', configFile, `--config-dir=${join(dir, 'conf.d')}`, '--cluster-domain=flag.local']), env);
    assert.equal(options.maxPods, 30, 'the last drop-in wins; a non-.conf file is skipped');
    assert.deepEqual(options.clusterDNS, ['10.0.0.9'], 'lists are replaced');
    assert.deepEqual(options.systemReserved, { cpu: '100m', memory: '1Gi' }, 'maps merge key by key');
    assert.equal(options.clusterDomain, 'flag.local', 'flags win over drop-ins');
    assert.equal(options.configDir, join(dir, 'conf.d'));
    assert.equal(options.readOnlyPort, 0, 'with --config, the v1beta1 default');
    const dropInsOnly = await resolveKubeletOptions(parseFlags([`--config-dir=${join(dir, 'conf.d')}`]), env);
    assert.equal(dropInsOnly.maxPods, 30);
    assert.equal(dropInsOnly.readOnlyPort, 10255, 'drop-ins alone merge over the legacy flag defaults, as upstream');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('bootstrap settings are carried, --cert-dir defaults to <root-dir>/pki, and the serving certificate bootstrap is acted on', () => {
  const options = mergeFlags(undefined, parseFlags(['--root-dir=/srv/kubelet', '--bootstrap-kubeconfig=/etc/kubernetes/bootstrap-kubelet.conf', '--rotate-certificates', '--rotate-server-certificates']), env);
  assert.equal(options.certDir, '/srv/kubelet/pki');
  assert.equal(options.bootstrapKubeconfig, '/etc/kubernetes/bootstrap-kubelet.conf');
  assert.equal(options.rotateCertificates, true);
  assert.equal(options.serverTLSBootstrap, true);
  assert.deepEqual(options.startupNotices.notActedOn, []);
  assert.equal(mergeFlags(undefined, parseFlags(['--cert-dir=/pki']), env).certDir, '/pki');
});

test('the settings not acted on: file fields and flags shardlet does not read, and none it does', () => {
  const file = parseKubeletConfig(`${HEADER}maxPods: 20\ncgroupDriver: systemd\nlogging: {verbosity: 2, format: json}\n`, 'k.yaml');
  const options = mergeFlags(file, parseFlags(['--node-ip=10.0.0.1', '--lock-file=/run/lock', '--kube-api-qps=10', '--hairpin-mode=none']), env);
  assert.deepEqual(options.startupNotices.notActedOn, ['logging.format', 'hairpinMode', '--lock-file', '--hairpin-mode']);
});

test('--help groups flags as upstream and marks the deprecated ones', () => {
  const help = helpText();
  const titles = [...help.matchAll(/^(\S.*):$/gm)].map((match) => match[1]);
  assert.deepEqual(titles, ['Generic flags', 'Kubelet flags', 'KubeletConfiguration flags (deprecated: set them in the --config file)', 'Logging flags', 'shardlet flags (not in upstream)']);
  assert.match(help, /--max-pods int .*\(DEPRECATED: This parameter should be set via the config file/);
  assert.match(help, /--minimum-container-ttl-duration duration .*\(DEPRECATED: Use --eviction-hard/);
  assert.doesNotMatch(help.split('\n').find((line) => line.includes('--kubeconfig string'))!, /DEPRECATED/);
  for (const flag of UPSTREAM_FLAGS) assert.match(help, new RegExp(`--${flag.name}\\b`), flag.name);
});

test('the Kubernetes version is a semver kubeadm accepts', () => {
  assert.match(kubeletVersion(), /^v1\.36\.5-shardlet\.\d+\.\d+\.\d+$/);
});

test('a tlsCertFile that cannot be read fails start-up naming the field and the file, as upstream', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'shardlet-tls-'));
  try {
    const configFile = join(dir, 'kubelet.yaml');
    const missing = join(dir, 'serving.crt');
    await writeFile(configFile, `${HEADER}tlsCertFile: ${missing}\n`);
    await assert.rejects(resolveKubeletOptions(parseFlags(['--config', configFile]), env), fails(ErrorCodes.CONFIG_INVALID, 'tlsCertFile', missing));
    await writeFile(missing, 'certificate');
    assert.equal((await resolveKubeletOptions(parseFlags(['--config', configFile]), env)).tlsCertFile, missing);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
