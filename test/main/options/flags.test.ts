import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorCodes, ShardletError } from '../../../src/shared/errors.js';
import { availableParallelism } from 'node:os';
import { defaultWorkers, helpText, maxWorkers, parseFlags, type KubeletFlags } from '../../../src/main/options/flags.js';
import { mergeFlags } from '../../../src/main/options/kubelet-config.js';

test('flag forms as pflag accepts them', () => {
  const cases: Array<{ argv: string[]; want: KubeletFlags }> = [
    { argv: ['--max-pods=250'], want: { maxPods: 250 } },
    { argv: ['--max-pods', '250'], want: { maxPods: 250 } },
    { argv: ['-v', '4'], want: { verbosity: 4 } },
    { argv: ['-v=4'], want: { verbosity: 4 } },
    { argv: ['-v4'], want: { verbosity: 4 } },
    { argv: ['--v=4'], want: { verbosity: 4 } },
    { argv: ['--v', '10'], want: { verbosity: 10 } },
    { argv: ['--serialize-image-pulls'], want: { serializeImagePulls: true } },
    { argv: ['--serialize-image-pulls=false'], want: { serializeImagePulls: false } },
    { argv: ['--register-node=F'], want: { registerNode: false } },
    { argv: ['--sync-frequency=1m30s'], want: { syncFrequencyMs: 90_000 } },
    { argv: ['--runtime-request-timeout', '100ms'], want: { runtimeRequestTimeoutMs: 100 } },
    { argv: ['--workers', '0'], want: { workers: 0 } },
    { argv: ['--runtime-creation-limit=off'], want: { runtimeCreationLimit: { mode: 'off' } } },
    { argv: ['--runtime-creation-limit', 'adaptive'], want: { runtimeCreationLimit: { mode: 'adaptive' } } },
    { argv: ['--runtime-creation-limit=10'], want: { runtimeCreationLimit: { mode: 'fixed', limit: 10 } } },
    { argv: ['--read-only-port=0'], want: { readOnlyPort: 0 } },
    { argv: ['--pod-pids-limit=-1'], want: { podPidsLimit: -1 } },
    { argv: ['--cluster-dns=10.96.0.10,fd00::a'], want: { clusterDNS: ['10.96.0.10', 'fd00::a'] } },
    { argv: ['--node-ip', '192.168.100.15'], want: { nodeIPs: ['192.168.100.15'] } },
    { argv: ['-h'], want: { help: true } },
    // Upstream's ConfigurationMap: a key alone is an empty value, as OpenShift's unit passes it.
    { argv: ['--node-labels=node-role.kubernetes.io/worker'], want: { nodeLabels: { 'node-role.kubernetes.io/worker': '' } } },
    { argv: ['--version'], want: { version: true } },
    {
      argv: ['--node-labels=node-role.kubernetes.io/master=,node.openshift.io/os_id=rhcos'],
      want: { nodeLabels: { 'node-role.kubernetes.io/master': '', 'node.openshift.io/os_id': 'rhcos' } },
    },
    {
      argv: ['--register-with-taints=node-role.kubernetes.io/master=:NoSchedule,dedicated:NoExecute'],
      want: {
        registerWithTaints: [
          { key: 'node-role.kubernetes.io/master', value: '', effect: 'NoSchedule' },
          { key: 'dedicated', effect: 'NoExecute' },
        ],
      },
    },
    { argv: ['--manifest-url-header', 'a:hello,b:again,a:world'], want: { manifestURLHeader: { a: ['hello', 'world'], b: ['again'] } } },
    {
      argv: ['--config', '/etc/kubernetes/kubelet.conf', '--kubeconfig=/var/lib/kubelet/kubeconfig', '--hostname-override', 'Master1'],
      want: { config: '/etc/kubernetes/kubelet.conf', kubeconfig: '/var/lib/kubelet/kubeconfig', hostnameOverride: 'Master1' },
    },
  ];
  // Deprecation notices have their own test (upstream-flags.test.ts).
  for (const { argv, want } of cases) assert.deepEqual(withoutDeprecations(parseFlags(argv)), want, argv.join(' '));
});

test('bad flags throw FLAG_INVALID naming the flag', () => {
  const cases: Array<{ argv: string[]; mentions: string }> = [
    { argv: ['--no-such-flag=1'], mentions: '--no-such-flag' },
    { argv: ['-config=x'], mentions: '-config' },
    { argv: ['--max-pods=many'], mentions: '--max-pods' },
    { argv: ['--max-pods=-3'], mentions: '--max-pods' },
    { argv: ['--max-pods'], mentions: '--max-pods' },
    { argv: ['--v=11'], mentions: '--v' },
    { argv: ['--serialize-image-pulls=maybe'], mentions: '--serialize-image-pulls' },
    { argv: ['--sync-frequency=10'], mentions: '--sync-frequency' },
    { argv: ['--cluster-dns=not-an-ip'], mentions: '--cluster-dns' },
    { argv: ['--node-ip=10.0.0.1,10.0.0.2'], mentions: '--node-ip' },
    { argv: ['--register-with-taints=key=value:Sometimes'], mentions: '--register-with-taints' },
    { argv: ['--node-labels=bad key=1'], mentions: '--node-labels' },
    { argv: ['--max-parallel-image-pulls=0'], mentions: '--max-parallel-image-pulls' },
    { argv: ['--read-only-port=70000'], mentions: '--read-only-port' },
    { argv: ['stray'], mentions: 'stray' },
  ];
  for (const { argv, mentions } of cases) {
    assert.throws(
      () => parseFlags(argv),
      (err: unknown) => err instanceof ShardletError && err.code === ErrorCodes.FLAG_INVALID && err.message.includes(mentions),
      argv.join(' '),
    );
  }
});

test('help lists every flag with its default', () => {
  const help = helpText();
  const flags = [
    'config', 'kubeconfig', 'container-runtime-endpoint', 'image-service-endpoint', 'hostname-override', 'node-ip',
    'pod-manifest-path', 'manifest-url', 'max-pods', 'workers', 'root-dir', 'runtime-request-timeout',
    'serialize-image-pulls', 'max-parallel-image-pulls', 'sync-frequency', 'file-check-frequency', 'http-check-frequency',
    'pod-pids-limit', 'cluster-dns', 'cluster-domain', 'resolv-conf', 'read-only-port', 'register-node', 'node-labels',
    'register-with-taints', 'v', 'help', 'version',
  ];
  const lines = help.split('\n');
  for (const flag of flags) {
    const line = lines.find((candidate) => new RegExp(`^\\s+(-\\w, )?--${flag}( |$)`).test(candidate));
    assert.ok(line, `help mentions --${flag}`);
    assert.match(line, /\(default .+\)( \(DEPRECATED: .+\))?$/, `--${flag} shows a default`);
  }
  assert.match(help, /unix:\/\/\/run\/containerd\/containerd\.sock/);
  assert.match(help, /--workers int .*min\(os\.availableParallelism\(\) - 1, 8\), at least 1/);
  assert.match(help, /--read-only-port int .*\(default 10255\)/);
});

test('the default worker count is one per spare core, 1 to 8', () => {
  const workers = defaultWorkers();
  assert.ok(workers >= 1 && workers <= 8);
});

test('--workers is bounded at 4 per core and 256, and the refusal names the flag and the limit', () => {
  const max = maxWorkers();
  assert.equal(max, Math.min(4 * availableParallelism(), 256));
  assert.deepEqual(parseFlags([`--workers=${max}`]), { workers: max });
  for (const value of [String(max + 1), '1000', '100000']) {
    assert.throws(
      () => parseFlags(['--workers', value]),
      (err: unknown) =>
        err instanceof ShardletError &&
        err.code === ErrorCodes.FLAG_INVALID &&
        err.details.flag === 'workers' &&
        err.message.includes('--workers') &&
        err.message.includes(`from 0 to ${max}`),
    );
  }
  assert.match(helpText(), /at most 4 per core and 256/);
});

test('--node-labels: labels NodeRestriction refuses a node are refused at start, as upstream; OpenShift\'s roles are kept', () => {
  const accepted: Array<[string, Record<string, string>]> = [
    ['node.kubernetes.io/pool=blue', { 'node.kubernetes.io/pool': 'blue' }],
    ['kubelet.kubernetes.io/x=1,sub.node.kubernetes.io/y=2', { 'kubelet.kubernetes.io/x': '1', 'sub.node.kubernetes.io/y': '2' }],
    ['topology.kubernetes.io/zone=a', { 'topology.kubernetes.io/zone': 'a' }],
    ['example.com/team=web,plain=yes', { 'example.com/team': 'web', plain: 'yes' }],
    // OpenShift's unit files pass these, and OpenShift's kubelet and NodeRestriction allow them.
    ['node-role.kubernetes.io/worker', { 'node-role.kubernetes.io/worker': '' }],
  ];
  for (const [value, want] of accepted) assert.deepEqual(parseFlags([`--node-labels=${value}`]), { nodeLabels: want }, value);
  for (const value of ['kubernetes.io/role=x', 'node-role.kubernetes.io/gpu=', 'a.k8s.io/b=c', 'node-restriction.kubernetes.io/x=y']) {
    assert.throws(
      () => parseFlags([`--node-labels=${value}`]),
      (err: unknown) =>
        err instanceof ShardletError &&
        err.code === ErrorCodes.FLAG_INVALID &&
        err.message.includes("unknown 'kubernetes.io' or 'k8s.io' labels specified with --node-labels: [") &&
        err.message.includes(value.split('=')[0]!),
      value,
    );
  }
});

function withoutDeprecations(flags: KubeletFlags): KubeletFlags {
  const { deprecations: _deprecations, ...rest } = flags;
  return rest;
}

test('--runtime-creation-limit refuses what is neither adaptive, off nor a positive integer, naming the flag', () => {
  for (const raw of ['0', '-3', '2.5', 'auto', '']) {
    assert.throws(
      () => parseFlags([`--runtime-creation-limit=${raw}`]),
      (err: unknown) => err instanceof ShardletError && err.code === ErrorCodes.FLAG_INVALID && /--runtime-creation-limit/.test(err.message) && /adaptive, off/.test(err.message),
      raw,
    );
  }
  assert.match(helpText(), /--runtime-creation-limit string\s+Sandbox and container creations in flight/);
});

test('the runtime contention guard is adaptive unless the flag says otherwise', () => {
  assert.deepEqual(mergeFlags(undefined, {}).runtimeCreationLimit, { mode: 'adaptive' });
  assert.deepEqual(mergeFlags(undefined, { runtimeCreationLimit: { mode: 'off' } }).runtimeCreationLimit, { mode: 'off' });
});
