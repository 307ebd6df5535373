import assert from 'node:assert/strict';
import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import type { Pod } from '../../../src/shared/types.js';
import { buildSandboxConfig } from '../../../src/workers/kuberuntime/sandbox-config.js';
import { snapshotTree, treeChanges } from '../../helpers/tree-snapshot.js';
import { makeContainer, makePod, makeSettings, POD_UID } from './fixtures.js';

test('sandbox config: a normal pod', async () => {
  const settings = makeSettings();
  const pod = makePod({
    containers: [
      makeContainer({ ports: [{ containerPort: 8080, hostPort: 30080, name: 'http' }, { containerPort: 53, protocol: 'UDP' }] }),
      makeContainer({ name: 'side', securityContext: { privileged: true } }),
    ],
    securityContext: { runAsUser: 1000, runAsGroup: 3000, fsGroup: 2000, supplementalGroups: [4000], sysctls: [{ name: 'net.core.somaxconn', value: '1024' }] },
  });
  const config = await buildSandboxConfig(pod, 2, settings);
  assert.deepEqual(config.metadata, { name: 'web-0', uid: POD_UID, namespace: 'shop', attempt: 2 });
  assert.equal(config.hostname, 'web-0');
  const logDir = join(settings.podLogsDir, `shop_web-0_${POD_UID}`);
  assert.equal(config.log_directory, logDir);
  assert.ok(statSync(logDir).isDirectory(), 'the pod log directory is created as upstream createPodSandbox does');
  assert.deepEqual(config.labels, {
    app: 'web',
    'io.kubernetes.pod.name': 'web-0',
    'io.kubernetes.pod.namespace': 'shop',
    'io.kubernetes.pod.uid': POD_UID,
  });
  assert.deepEqual(config.annotations, { 'example.com/owner': 'team-a' });
  assert.deepEqual(config.port_mappings, [
    { protocol: 'TCP', container_port: 8080, host_port: 30080, host_ip: '' },
    { protocol: 'UDP', container_port: 53, host_port: 0, host_ip: '' },
  ]);
  assert.deepEqual(config.dns_config, {
    servers: ['10.96.0.10'],
    searches: ['shop.svc.cluster.local', 'svc.cluster.local', 'cluster.local', 'corp.example', 'lab.example'],
    options: ['ndots:5'],
  });
  const linux = config.linux!;
  assert.equal(linux.cgroup_parent, '');
  assert.deepEqual(linux.sysctls, { 'net.core.somaxconn': '1024' });
  assert.deepEqual(linux.security_context, {
    namespace_options: { network: 'POD', pid: 'CONTAINER', ipc: 'POD' },
    privileged: true,
    seccomp: { profile_type: 'RuntimeDefault' },
    supplemental_groups: [2000, 4000],
    supplemental_groups_policy: 'Merge',
    run_as_user: { value: 1000 },
    run_as_group: { value: 3000 },
  });
});

test('sandbox config: a host-network pod', async () => {
  const settings = makeSettings();
  const pod = makePod({
    hostNetwork: true,
    hostPID: true,
    hostIPC: true,
    containers: [makeContainer({ ports: [{ containerPort: 10250, hostPort: 10250 }] })],
  });
  const config = await buildSandboxConfig(pod, 0, settings);
  assert.equal(config.hostname, '', "the node's UTS namespace keeps its own hostname");
  assert.deepEqual(config.linux?.security_context?.namespace_options, { network: 'NODE', pid: 'NODE', ipc: 'NODE' });
  assert.equal(config.linux?.security_context?.privileged, false);
  // ClusterFirst on the host network falls back to the node's resolver.
  assert.deepEqual(config.dns_config, {
    servers: ['10.0.0.53', '10.0.0.54'],
    searches: ['corp.example', 'lab.example'],
    options: ['timeout:2', 'ndots:2'],
  });
  assert.deepEqual(config.port_mappings, [{ protocol: 'TCP', container_port: 10250, host_port: 10250, host_ip: '' }]);
});

test('sandbox config: shareProcessNamespace gives a pod PID namespace', async () => {
  const config = await buildSandboxConfig(makePod({ shareProcessNamespace: true }), 0, makeSettings());
  assert.equal(config.linux?.security_context?.namespace_options?.pid, 'POD');
});

test('sandbox config: DNS policies', async () => {
  const settings = makeSettings();
  const dnsOf = async (spec: Parameters<typeof makePod>[0], overrides = settings) => (await buildSandboxConfig(makePod(spec), 0, overrides)).dns_config;
  assert.deepEqual(await dnsOf({ dnsPolicy: 'Default' }), {
    servers: ['10.0.0.53', '10.0.0.54'],
    searches: ['corp.example', 'lab.example'],
    options: ['timeout:2', 'ndots:2'],
  });
  assert.deepEqual((await dnsOf({ hostNetwork: true, dnsPolicy: 'ClusterFirstWithHostNet' }))?.servers, ['10.96.0.10']);
  assert.deepEqual(
    await dnsOf({
      dnsPolicy: 'None',
      dnsConfig: { nameservers: ['1.1.1.1'], searches: ['a.example'], options: [{ name: 'ndots', value: '1' }, { name: 'edns0' }] },
    }),
    { servers: ['1.1.1.1'], searches: ['a.example'], options: ['ndots:1', 'edns0'] },
  );
  // dnsConfig merges over ClusterFirst: its options override by name.
  assert.deepEqual(
    await dnsOf({ dnsConfig: { nameservers: ['10.96.0.10', '9.9.9.9'], options: [{ name: 'ndots', value: '2' }] } }),
    {
      servers: ['10.96.0.10', '9.9.9.9'],
      searches: ['shop.svc.cluster.local', 'svc.cluster.local', 'cluster.local', 'corp.example', 'lab.example'],
      options: ['ndots:2'],
    },
  );
  // No clusterDNS: ClusterFirst falls back to Default.
  assert.deepEqual((await dnsOf({}, { ...settings, clusterDNS: [] }))?.servers, ['10.0.0.53', '10.0.0.54']);
  // --resolv-conf="" makes Default point at the local resolver.
  assert.deepEqual(await dnsOf({ dnsPolicy: 'Default' }, { ...settings, resolvConf: '' }), {
    servers: ['127.0.0.1'],
    searches: ['.'],
    options: [],
  });
  // Limits: three nameservers at most.
  assert.deepEqual((await dnsOf({ dnsConfig: { nameservers: ['1.1.1.1', '2.2.2.2', '3.3.3.3'] } }))?.servers, ['10.96.0.10', '1.1.1.1', '2.2.2.2']);
});

test('sandbox config: an unreadable resolv.conf fails with a coded error', async () => {
  const settings = makeSettings({ resolvConf: '/nonexistent/resolv.conf' });
  await assert.rejects(() => buildSandboxConfig(makePod(), 0, settings), {
    code: 'SHARDLET_RUN_SANDBOX',
    message: /resolv\.conf/,
  });
});

test('sandbox config: hostname and subdomain rules', async () => {
  const settings = makeSettings();
  assert.equal((await buildSandboxConfig(makePod({ hostname: 'db-primary', subdomain: 'db' }), 0, settings)).hostname, 'db-primary');
  assert.equal(
    (await buildSandboxConfig(makePod({ hostname: 'db-0', subdomain: 'db', setHostnameAsFQDN: true }), 0, settings)).hostname,
    'db-0.db.shop.svc.cluster.local',
  );
  const longName = `${'a'.repeat(62)}-b${'c'.repeat(10)}`;
  assert.equal((await buildSandboxConfig(makePod({}, { name: longName }), 0, settings)).hostname, 'a'.repeat(62));
  await assert.rejects(() => buildSandboxConfig(makePod({ hostname: 'Not_Valid' }), 0, settings), {
    code: 'SHARDLET_RUN_SANDBOX',
    message: /not a valid DNS label/,
  });
  assert.equal(existsSync(settings.podLogsDir), true);
});

test('sandbox config: a UID, namespace or name that would climb out of the log dir is refused, and nothing is made', async () => {
  const settings = makeSettings();
  const base = dirname(settings.podLogsDir);
  const before = await snapshotTree(base);
  const hostile: Array<[Partial<NonNullable<Pod['metadata']>>, RegExp]> = [
    [{ uid: 'x/../../victim' }, /failed: metadata\.uid: Invalid value/],
    [{ uid: '..' }, /failed: metadata\.uid: Invalid value/],
    [{ namespace: '../../victim' }, /failed: metadata\.namespace: Invalid value/],
    [{ name: 'a/../../../victim' }, /failed: metadata\.name: Invalid value/],
  ];
  for (const [metadata, message] of hostile) {
    await assert.rejects(() => buildSandboxConfig(makePod({}, metadata), 0, settings), { code: 'SHARDLET_PATH_UNSAFE', message }, JSON.stringify(metadata));
  }
  assert.deepEqual(treeChanges(before, await snapshotTree(base)), []);
});
