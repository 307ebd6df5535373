// The static request encoders against proto-loader's codec of the same proto:
// whatever a caller sends, the runtime must read the same message from our bytes
// as from the bytes CriClient sent before (containerd decodes with the spec's own
// numbers, which are the proto's), and our bytes carry no field left at its default.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { loadCriServices } from '../../../../src/shared/cri/load-proto.js';
import type * as cri from '../../../../src/shared/cri/types.js';
import { STATIC_METHODS } from '../../../../src/shared/cri/unary-methods.js';
import { criType, messageArbitrary, reflectiveDecode } from './proto-arbitraries.js';

const NUM_RUNS = 200;

/** Each static method's request type. */
const REQUEST_TYPES: Array<[keyof typeof STATIC_METHODS, string]> = [
  ['version', 'VersionRequest'],
  ['runPodSandbox', 'RunPodSandboxRequest'],
  ['stopPodSandbox', 'StopPodSandboxRequest'],
  ['removePodSandbox', 'RemovePodSandboxRequest'],
  ['podSandboxStatus', 'PodSandboxStatusRequest'],
  ['listPodSandbox', 'ListPodSandboxRequest'],
  ['createContainer', 'CreateContainerRequest'],
  ['startContainer', 'StartContainerRequest'],
  ['stopContainer', 'StopContainerRequest'],
  ['removeContainer', 'RemoveContainerRequest'],
  ['listContainers', 'ListContainersRequest'],
  ['containerStatus', 'ContainerStatusRequest'],
  ['execSync', 'ExecSyncRequest'],
  ['imageStatus', 'ImageStatusRequest'],
  ['pullImage', 'PullImageRequest'],
];

function genericSerialize(key: keyof typeof STATIC_METHODS): (request: object) => Buffer {
  const { service, name } = STATIC_METHODS[key];
  const services = loadCriServices();
  const definitions = (service === 'RuntimeService' ? services.runtime : services.image) as unknown as Record<string, { requestSerialize(request: object): Buffer }>;
  return definitions[name].requestSerialize;
}

for (const [key, typeName] of REQUEST_TYPES) {
  test(`${typeName}: the runtime reads from our bytes what it read from proto-loader's, and they are no longer`, () => {
    const type = criType(typeName);
    const serialize = STATIC_METHODS[key].serialize as (request: object) => Buffer;
    const generic = genericSerialize(key);
    fc.assert(
      fc.property(messageArbitrary(type), (request) => {
        const ours = serialize(request);
        const theirs = generic(request);
        assert.deepEqual(reflectiveDecode(type, ours), reflectiveDecode(type, theirs));
        assert.ok(ours.length <= theirs.length, `${ours.length} bytes against ${theirs.length}`);
      }),
      { numRuns: NUM_RUNS },
    );
  });
}

/** A bench pod's sandbox as buildSandboxConfig makes it, defaults spelled out as the builder spells them. */
const sandboxConfig: cri.PodSandboxConfig = {
  metadata: { name: 'bench-0000', uid: '0b6f5a0e-2c1d-4f43-9d5e-7c3a1b2e4f60', namespace: 'bench', attempt: 0 },
  hostname: 'bench-0000',
  log_directory: '/var/log/pods/bench_bench-0000_0b6f5a0e-2c1d-4f43-9d5e-7c3a1b2e4f60',
  dns_config: { servers: ['10.96.0.10'], searches: ['bench.svc.cluster.local', 'svc.cluster.local', 'cluster.local'], options: ['ndots:5'] },
  port_mappings: [{ protocol: 'TCP', container_port: 8080, host_port: 0, host_ip: '' }],
  labels: { app: 'shardlet-bench', 'io.kubernetes.pod.uid': '0b6f5a0e-2c1d-4f43-9d5e-7c3a1b2e4f60' },
  annotations: { 'kubernetes.io/config.source': 'file' },
  linux: {
    cgroup_parent: '',
    security_context: { namespace_options: { network: 'POD', pid: 'CONTAINER', ipc: 'POD' }, privileged: false, seccomp: { profile_type: 'RuntimeDefault' }, supplemental_groups: [] },
    sysctls: {},
  },
};

test('a present sub-message is sent even when every field in it is at its default', () => {
  const type = criType('RunPodSandboxRequest');
  const decoded = reflectiveDecode(type, STATIC_METHODS.runPodSandbox.serialize({ config: sandboxConfig, runtime_handler: '' })) as {
    config: { linux: { security_context: { seccomp: unknown; run_as_user: unknown } } };
  };
  // RuntimeDefault is 0: the profile is all defaults, yet "seccomp set to RuntimeDefault" is not "no seccomp".
  assert.deepEqual(decoded.config.linux.security_context.seccomp, { profile_type: 'RuntimeDefault', localhost_ref: '' });
  assert.equal(decoded.config.linux.security_context.run_as_user, null);
});

test('run_as_user 0 (root) is sent as a present Int64Value, not dropped as a default', () => {
  const type = criType('CreateContainerRequest');
  const bytes = STATIC_METHODS.createContainer.serialize({ pod_sandbox_id: 'p', config: { linux: { security_context: { run_as_user: { value: 0 } } } } });
  const decoded = reflectiveDecode(type, bytes) as { config: { linux: { security_context: { run_as_user: unknown } } } };
  assert.deepEqual(decoded.config.linux.security_context.run_as_user, { value: 0 });
});

test('defaults, empty lists and empty maps cost no bytes', () => {
  assert.equal(STATIC_METHODS.containerStatus.serialize({ container_id: '', verbose: false }).length, 0);
  assert.equal(STATIC_METHODS.listContainers.serialize({}).length, 0);
  assert.equal(STATIC_METHODS.execSync.serialize({ container_id: '', cmd: [], timeout: 0 }).length, 0);
  // The filter is present (an empty message, 2 bytes); its empty selector is not.
  assert.equal(STATIC_METHODS.listPodSandbox.serialize({ filter: { label_selector: {} } }).length, 2);
});

test('an empty string inside a repeated field is kept: the list keeps its length', () => {
  const type = criType('ExecSyncRequest');
  const decoded = reflectiveDecode(type, STATIC_METHODS.execSync.serialize({ container_id: 'c', cmd: ['sh', '', '-c'], timeout: 5 }));
  assert.deepEqual(decoded, { container_id: 'c', cmd: ['sh', '', '-c'], timeout: 5 });
});
