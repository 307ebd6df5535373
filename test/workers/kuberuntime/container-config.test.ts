import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, realpathSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { hashContainer } from '../../../src/shared/kuberuntime/container-hash.js';
import type { ShardSettings } from '../../../src/shared/shard-protocol.js';
import type { Container, Pod } from '../../../src/shared/types.js';
import type { Mount } from '../../../src/generated/cri/runtime/v1/Mount.js';
import { buildContainerConfig, type ContainerConfigArgs } from '../../../src/workers/kuberuntime/container-config.js';
import { buildSandboxConfig } from '../../../src/workers/kuberuntime/sandbox-config.js';
import { DEFAULT_MASKED_PATHS, DEFAULT_READONLY_PATHS } from '../../../src/workers/kuberuntime/security-context.js';
import { cleanPodSubPaths } from '../../../src/workers/volumes/subpath-cleanup.js';
import { isUnder, snapshotTree, treeChanges } from '../../helpers/tree-snapshot.js';
import { makeContainer, makePod, makeSettings, makeTempDir, POD_UID } from './fixtures.js';
import { ROOT_IMAGE_USER } from '../../../src/workers/images/image-user.js';

const GIB = 1024 ** 3;

async function configFor(pod: Pod, container: Container, extra: Partial<ContainerConfigArgs> & { settings?: ShardSettings } = {}) {
  const settings = extra.settings ?? makeSettings();
  return buildContainerConfig({
    pod,
    container,
    type: 'REGULAR',
    restartCount: 0,
    imageRef: 'sha256:0123abcd',
    sandboxConfig: await buildSandboxConfig(pod, 0, settings),
    podIPs: ['10.244.1.7'],
    settings,
    volumePaths: {},
    resourceOptions: { memoryCapacityBytes: 8 * GIB, cgroup2: false },
    ...extra,
    imageUser: extra.imageUser ?? ROOT_IMAGE_USER,
  });
}

test('container config: metadata, image, command, env, labels and annotations', async () => {
  const container = makeContainer({
    command: ['/bin/sh', '-c'],
    args: ['echo $(GREETING) from $(POD_NAME) $(UNSET)'],
    workingDir: '/work',
    stdin: true,
    tty: true,
    env: [
      { name: 'GREETING', value: 'hi' },
      { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
    ],
    ports: [{ containerPort: 8080, name: 'http', protocol: 'TCP' }],
    lifecycle: { preStop: { exec: { command: ['sleep', '2'] } } },
  });
  const pod = makePod({ containers: [container], terminationGracePeriodSeconds: 45 });
  const config = await configFor(pod, container, { restartCount: 3, type: 'INIT' });
  assert.deepEqual(config.metadata, { name: 'app', attempt: 3 });
  assert.deepEqual(config.image, { image: 'sha256:0123abcd', user_specified_image: 'registry.local/busybox:1.36' });
  assert.deepEqual(config.command, ['/bin/sh', '-c']);
  assert.deepEqual(config.args, ['echo hi from web-0 $(UNSET)']);
  assert.equal(config.working_dir, '/work');
  assert.deepEqual(config.envs, [
    { key: 'GREETING', value: 'hi' },
    { key: 'POD_NAME', value: 'web-0' },
  ]);
  assert.equal(config.log_path, 'app/3.log');
  assert.equal(config.stdin, true);
  assert.equal(config.tty, true);
  assert.deepEqual(config.labels, {
    'io.kubernetes.pod.name': 'web-0',
    'io.kubernetes.pod.namespace': 'shop',
    'io.kubernetes.pod.uid': POD_UID,
    'io.kubernetes.container.name': 'app',
    'io.kubernetes.container.type': 'INIT',
  });
  assert.deepEqual(config.annotations, {
    'io.kubernetes.container.hash': hashContainer(container),
    'io.kubernetes.container.restartCount': '3',
    'io.kubernetes.container.terminationMessagePath': '/dev/termination-log',
    'io.kubernetes.container.terminationMessagePolicy': 'File',
    'io.kubernetes.pod.terminationGracePeriod': '45',
    'io.kubernetes.container.preStopHandler': '{"exec":{"command":["sleep","2"]}}',
    'io.kubernetes.container.ports': '[{"name":"http","containerPort":8080,"protocol":"TCP"}]',
  });
});

test('container config: the container log directory is created', async () => {
  const settings = makeSettings();
  const pod = makePod();
  await configFor(pod, pod.spec!.containers[0], { settings });
  assert.ok(statSync(join(settings.podLogsDir, `shop_web-0_${POD_UID}`, 'app')).isDirectory());
});

test('container config: resources to shares, quota, memory and OOM score', async () => {
  const resourcesOf = async (resources: Container['resources'], pod?: Pod) => {
    const container = makeContainer({ resources });
    return (await configFor(pod ?? makePod({ containers: [container] }), container)).linux?.resources;
  };
  // Guaranteed: requests equal limits.
  assert.deepEqual(await resourcesOf({ limits: { cpu: '500m', memory: '128Mi' }, requests: { cpu: '0.5', memory: '128Mi' } }), {
    cpu_shares: 512,
    cpu_period: 100_000,
    cpu_quota: 50_000,
    memory_limit_in_bytes: 128 * 1024 * 1024,
    oom_score_adj: -997,
  });
  // Best effort: minimum shares, no quota, no memory limit.
  assert.deepEqual(await resourcesOf(undefined), { cpu_shares: 2, cpu_period: 100_000, cpu_quota: 0, oom_score_adj: 1000 });
  // Burstable: 1 GiB requested of 8 GiB → 1000 - 125.
  assert.deepEqual(await resourcesOf({ requests: { cpu: '1', memory: '1Gi' } }), {
    cpu_shares: 1024,
    cpu_period: 100_000,
    cpu_quota: 0,
    oom_score_adj: 875,
  });
  // A limit without a request is requested at the limit; tiny limits hit the quota floor.
  const tiny = await resourcesOf({ limits: { cpu: '5m' } });
  assert.equal(tiny?.cpu_shares, 5);
  assert.equal(tiny?.cpu_quota, 1000);
  // Burstable with no memory request: 1000 would tie best effort, so 999.
  assert.equal((await resourcesOf({ requests: { cpu: '100m' } }))?.oom_score_adj, 999);
  // Huge requests are clamped to 1000 + (-997).
  assert.equal((await resourcesOf({ requests: { memory: '16Gi' } }))?.oom_score_adj, 3);
  // A static system-node-critical pod is protected like a guaranteed one.
  const critical = makeContainer();
  const criticalPod = makePod(
    { containers: [critical], priorityClassName: 'system-node-critical' },
    { annotations: { 'kubernetes.io/config.source': 'file' } },
  );
  assert.equal((await configFor(criticalPod, critical)).linux?.resources?.oom_score_adj, -997);
});

test('container config: podPidsLimit goes to pids.max on cgroup v2 only', async () => {
  const settings = makeSettings({ podPidsLimit: 1024 });
  const pod = makePod();
  const container = pod.spec!.containers[0];
  const v2 = await configFor(pod, container, { settings, resourceOptions: { memoryCapacityBytes: 8 * GIB, cgroup2: true } });
  assert.deepEqual(v2.linux?.resources?.unified, { 'pids.max': '1024' });
  const v1 = await configFor(pod, container, { settings, resourceOptions: { memoryCapacityBytes: 8 * GIB, cgroup2: false } });
  assert.equal(v1.linux?.resources?.unified, undefined);
});

test('container config: security context', async () => {
  const container = makeContainer({
    securityContext: {
      runAsUser: 1001,
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { add: ['NET_ADMIN'], drop: ['ALL'] },
      seccompProfile: { type: 'Localhost', localhostProfile: 'profiles/audit.json' },
    },
  });
  const settings = makeSettings();
  const pod = makePod({
    containers: [container],
    shareProcessNamespace: true,
    securityContext: { runAsUser: 1000, runAsGroup: 3000, fsGroup: 2000, supplementalGroups: [4000] },
  });
  const security = (await configFor(pod, container, { settings })).linux?.security_context;
  assert.deepEqual(security, {
    privileged: false,
    readonly_rootfs: true,
    namespace_options: { network: 'POD', pid: 'POD', ipc: 'POD' },
    supplemental_groups: [2000, 4000],
    supplemental_groups_policy: 'Merge',
    no_new_privs: true,
    masked_paths: DEFAULT_MASKED_PATHS,
    readonly_paths: DEFAULT_READONLY_PATHS,
    seccomp: { profile_type: 'Localhost', localhost_ref: join(settings.rootDir, 'seccomp', 'profiles/audit.json') },
    capabilities: { add_capabilities: ['NET_ADMIN'], drop_capabilities: ['ALL'] },
    run_as_user: { value: 1001 },
    run_as_group: { value: 3000 },
  });
  const privileged = makeContainer({ securityContext: { privileged: true } });
  const privilegedSecurity = (await configFor(makePod({ containers: [privileged] }), privileged)).linux?.security_context;
  assert.equal(privilegedSecurity?.privileged, true);
  assert.deepEqual(privilegedSecurity?.masked_paths, []);
  assert.deepEqual(privilegedSecurity?.readonly_paths, []);
  assert.deepEqual(privilegedSecurity?.seccomp, { profile_type: 'Unconfined' });
  assert.equal(privilegedSecurity?.no_new_privs, false);
});

test('container config: runAsNonRoot with runAsUser 0 is refused', async () => {
  const container = makeContainer({ securityContext: { runAsNonRoot: true, runAsUser: 0 } });
  await assert.rejects(() => configFor(makePod({ containers: [container] }), container), {
    code: 'SHARDLET_CREATE_CONTAINER_CONFIG',
    message: /non-root/,
  });
});

function volumeFixture() {
  const base = realpathSync(makeTempDir('shardlet-volumes-'));
  const data = join(base, 'data');
  mkdirSync(join(data, 'existing'), { recursive: true, mode: 0o775 });
  writeFileSync(join(data, 'config.yaml'), 'a: 1\n');
  return { base, data };
}

test('container config: volume mounts with subPath, subPathExpr, readOnly and propagation', async () => {
  const { data } = volumeFixture();
  const container = makeContainer({
    env: [{ name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
    volumeMounts: [
      { name: 'data', mountPath: '/data' },
      { name: 'data', mountPath: '/etc/app/config.yaml', subPath: 'config.yaml', readOnly: true },
      { name: 'data', mountPath: '/logs', subPathExpr: 'logs/$(POD_NAME)', mountPropagation: 'HostToContainer' },
    ],
  });
  const settings = makeSettings();
  const pod = makePod({ containers: [container] });
  try {
    assertVolumeMounts((await configFor(pod, container, { settings, volumePaths: { data } })).mounts!, settings, data);
  } finally {
    await cleanPodSubPaths(settings.rootDir, POD_UID);
  }
});

function assertVolumeMounts(mounts: Mount[], settings: ShardSettings, data: string): void {
  // A subPath reaches the runtime as the kubelet's bind target, <pod>/volume-subpaths/<volume>/<container>/<index>.
  const subpaths = join(settings.rootDir, 'pods', POD_UID, 'volume-subpaths', 'data', 'app');
  assert.deepEqual(mounts.slice(0, 3), [
    { host_path: data, container_path: '/data', readonly: false, propagation: 'PROPAGATION_PRIVATE' },
    { host_path: join(subpaths, '1'), container_path: '/etc/app/config.yaml', readonly: true, propagation: 'PROPAGATION_PRIVATE' },
    { host_path: join(subpaths, '2'), container_path: '/logs', readonly: false, propagation: 'PROPAGATION_HOST_TO_CONTAINER' },
  ]);
  assert.equal(statSync(join(subpaths, '1')).ino, statSync(join(data, 'config.yaml')).ino);
  assert.equal(statSync(join(subpaths, '2')).ino, statSync(join(data, 'logs', 'web-0')).ino);
  // A missing subPath directory is created with the volume's mode.
  assert.equal(statSync(join(data, 'logs', 'web-0')).mode & 0o777, statSync(data).mode & 0o777);
  // Then /etc/hosts and the termination-log file.
  const hosts = mounts[3];
  assert.deepEqual(hosts, { host_path: join(settings.rootDir, 'pods', POD_UID, 'etc-hosts'), container_path: '/etc/hosts', readonly: false });
  const hostsText = readFileSync(hosts.host_path!, 'utf8');
  assert.match(hostsText, /^# Kubernetes-managed hosts file\.\n127\.0\.0\.1\tlocalhost\n/);
  assert.match(hostsText, /\n10\.244\.1\.7\tweb-0\n$/);
  const terminationLog = mounts[4];
  assert.equal(terminationLog.container_path, '/dev/termination-log');
  assert.match(terminationLog.host_path!, new RegExp(`^${join(settings.rootDir, 'pods', POD_UID, 'containers', 'app')}/[0-9a-f]{8}$`));
  assert.equal(statSync(terminationLog.host_path!).mode & 0o777, 0o666);
  assert.equal(mounts.length, 5);
}

test('container config: bad subPaths are refused, with messages that name no host path', async () => {
  const { base, data } = volumeFixture();
  symlinkSync(base, join(data, 'escape'));
  const cases: Array<[string, string, RegExp]> = [
    ['../secret', 'SHARDLET_CREATE_CONTAINER_CONFIG', /unable to provision SubPath `\.\.\/secret`: must not contain '\.\.'/],
    ['a/../../b', 'SHARDLET_CREATE_CONTAINER_CONFIG', /must not contain '\.\.'/],
    ['/etc/shadow', 'SHARDLET_CREATE_CONTAINER_CONFIG', /error SubPath `\/etc\/shadow` must not be an absolute path/],
    ['escape/data', 'SHARDLET_SUBPATH_FAILED', /^pod shop\/web-0: failed to prepare subPath for volumeMount "data" of container "app"$/],
    ['existing/escape', 'SHARDLET_SUBPATH_FAILED', /^pod shop\/web-0: failed to prepare subPath for volumeMount "data" of container "app"$/],
  ];
  symlinkSync('/', join(data, 'existing', 'escape'));
  for (const [subPath, code, message] of cases) {
    const container = makeContainer({ volumeMounts: [{ name: 'data', mountPath: '/data', subPath }] });
    const err = await configFor(makePod({ containers: [container] }), container, { volumePaths: { data } }).then(
      () => assert.fail(`${subPath} was accepted`),
      (rejection: { code: string; message: string; details: { cause?: string } }) => rejection,
    );
    assert.equal(err.code, code, subPath);
    assert.match(err.message, message, subPath);
    assert.equal(err.message.includes(base), false, 'no host path in what the pod shows');
    // The cause, for the kubelet's log, names the step within the volume.
    if (code === 'SHARDLET_SUBPATH_FAILED') assert.match(err.details.cause ?? '', /^unexpected symlink found (escape|existing\/escape)$/);
  }
});

test('container config: a mount of an unknown volume is refused', async () => {
  const container = makeContainer({ volumeMounts: [{ name: 'ghost', mountPath: '/ghost' }] });
  await assert.rejects(() => configFor(makePod({ containers: [container] }), container), {
    code: 'SHARDLET_CREATE_CONTAINER_CONFIG',
    message: /cannot find volume "ghost"/,
  });
});

test('container config: /etc/hosts with a subdomain, host aliases, or the host network', async () => {
  const settings = makeSettings();
  const container = makeContainer({ terminationMessagePath: '' });
  const pod = makePod({
    containers: [container],
    hostname: 'db-0',
    subdomain: 'db',
    hostAliases: [{ ip: '10.1.2.3', hostnames: ['foo.local', 'bar.local'] }],
  });
  const mounts = (await configFor(pod, container, { settings })).mounts!;
  assert.equal(mounts.length, 1, 'an empty terminationMessagePath means no termination-log mount');
  const text = readFileSync(mounts[0].host_path!, 'utf8');
  assert.match(text, /\n10\.244\.1\.7\tdb-0\.db\.shop\.svc\.cluster\.local\tdb-0\n/);
  assert.match(text, /\n# Entries added by HostAliases\.\n10\.1\.2\.3\tfoo\.local\tbar\.local\n$/);

  const hostPod = makePod({ containers: [container], hostNetwork: true });
  const hostMounts = (await configFor(hostPod, container, { settings, podIPs: [] })).mounts!;
  const hostText = readFileSync(hostMounts[0].host_path!, 'utf8');
  assert.equal(hostText, `# Kubernetes-managed hosts file (host network).\n${readFileSync('/etc/hosts', 'utf8')}`);

  const ownHosts = makeContainer({ volumeMounts: [{ name: 'h', mountPath: '/etc/hosts' }], terminationMessagePath: '' });
  const own = (await configFor(makePod({ containers: [ownHosts] }), ownHosts, { volumePaths: { h: '/etc/hosts' } })).mounts!;
  assert.deepEqual(own.map((m) => m.container_path), ['/etc/hosts']);
});

test('container config: apiData reaches env (and command expansion); a missing Secret is CreateContainerConfigError', async () => {
  const container = makeContainer({
    command: ['run', '--level=$(LEVEL)'],
    envFrom: [{ configMapRef: { name: 'app' } }],
    env: [{ name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'api', key: 'token' } } }],
  });
  const pod = makePod({ containers: [container] });
  const apiData = {
    configMaps: { app: { data: { LEVEL: 'debug' }, binaryData: {} } },
    secrets: { api: { type: 'Opaque', data: { token: Buffer.from('t0k').toString('base64') } } },
    serviceAccountTokens: {},
  };
  const config = await configFor(pod, container, { apiData });
  assert.deepEqual(config.envs, [{ key: 'LEVEL', value: 'debug' }, { key: 'TOKEN', value: 't0k' }]);
  assert.deepEqual(config.command, ['run', '--level=debug']);
  await assert.rejects(() => configFor(pod, container, { apiData: { ...apiData, secrets: { api: null } } }), {
    code: 'SHARDLET_CREATE_CONTAINER_CONFIG',
    message: 'secret "api" not found',
  });
});

test('container config: a container name or seccomp localhostProfile that would leave its directory is refused, and nothing is made', async () => {
  const settings = makeSettings();
  const base = dirname(settings.rootDir);
  const pod = makePod();
  await buildSandboxConfig(pod, 0, settings);
  const before = await snapshotTree(base);
  // <logs>/<pod>/../../victim is <base>/victim.
  for (const name of ['..', '../../victim', 'a/b']) {
    await assert.rejects(() => configFor(pod, makeContainer({ name }), { settings }), { code: 'SHARDLET_PATH_UNSAFE', message: /^container name: / }, name);
  }
  for (const localhostProfile of ['../../../../etc/shadow', '/etc/shadow', 'profiles/../../x', '']) {
    const container = makeContainer({ securityContext: { seccompProfile: { type: 'Localhost', localhostProfile } } });
    await assert.rejects(() => configFor(pod, container, { settings }), { code: /SHARDLET_(PATH_UNSAFE|CREATE_CONTAINER_CONFIG)/, message: /localhostProfile/ }, localhostProfile);
  }
  // Building a config makes the container's own files (etc-hosts, termination log) in the root and log dirs; nothing else may change.
  const outside = treeChanges(before, await snapshotTree(base)).filter((change) => {
    const path = change.slice(change.indexOf(' ') + 1);
    return path !== '.' && !isUnder(path, 'kubelet') && !isUnder(path, 'pods-logs');
  });
  assert.deepEqual(outside, []);
});
