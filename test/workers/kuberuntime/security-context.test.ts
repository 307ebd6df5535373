// The container security context against the image's user and the AppArmor
// profile, as upstream's TestVerifyRunAsNonRoot, determineEffectiveSecurityContext
// and getAppArmorProfile tables.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { V1PodSecurityContext, V1SecurityContext } from '@kubernetes/client-node';
import type { ImageUser } from '../../../src/workers/images/image-user.js';
import { containerSecurityContext } from '../../../src/workers/kuberuntime/security-context.js';
import { makeContainer, makePod } from './fixtures.js';

const ROOT: ImageUser = { uid: 0 };
const ANY_USER: ImageUser = { uid: 1000 };

interface RunAsNonRootCase {
  desc: string;
  container?: V1SecurityContext;
  pod?: V1PodSecurityContext;
  user: ImageUser;
  /** The refusal's message, or undefined when the container may run. */
  refused?: RegExp;
}

const RUN_AS_NON_ROOT_CASES: RunAsNonRootCase[] = [
  { desc: 'no security context, root image', user: ROOT },
  { desc: 'runAsUser non-root under runAsNonRoot', container: { runAsNonRoot: true, runAsUser: 1000 }, user: ROOT },
  { desc: 'runAsNonRoot unset, runAsUser 0', container: { runAsUser: 0 }, user: ROOT },
  { desc: 'runAsNonRoot false, root image', container: { runAsNonRoot: false }, user: ROOT },
  { desc: 'runAsNonRoot false, runAsUser 0', container: { runAsNonRoot: false, runAsUser: 0 }, user: ROOT },
  {
    desc: 'runAsUser 0 under runAsNonRoot',
    container: { runAsNonRoot: true, runAsUser: 0 },
    user: ROOT,
    refused: /container's runAsUser breaks non-root policy/,
  },
  {
    desc: 'root image under runAsNonRoot',
    container: { runAsNonRoot: true },
    user: ROOT,
    refused: /^container app of pod shop\/web-0: container has runAsNonRoot and image will run as root$/,
  },
  {
    desc: 'image user named only by name under runAsNonRoot',
    container: { runAsNonRoot: true },
    user: { username: 'test' },
    refused: /container has runAsNonRoot and image has non-numeric user \(test\), cannot verify user is non-root/,
  },
  { desc: 'non-root image under runAsNonRoot', container: { runAsNonRoot: true }, user: ANY_USER },
  {
    desc: 'image uid beyond 2^31 - 1 under runAsNonRoot',
    container: { runAsNonRoot: true },
    user: { uid: 2_147_483_648 },
    refused: /image has an invalid user id \(2147483648\)/,
  },
  { desc: 'negative image uid under runAsNonRoot', container: { runAsNonRoot: true }, user: { uid: -1000 }, refused: /invalid user id \(-1000\)/ },
  { desc: 'image uid 2^31 - 1 under runAsNonRoot', container: { runAsNonRoot: true }, user: { uid: 2_147_483_647 } },
  // The pod's settings are inherited, and the container's win.
  { desc: "the pod's runAsNonRoot, root image", pod: { runAsNonRoot: true }, user: ROOT, refused: /image will run as root/ },
  { desc: "the pod's runAsNonRoot and runAsUser, root image", pod: { runAsNonRoot: true, runAsUser: 1000 }, user: ROOT },
  { desc: "the container's runAsNonRoot false over the pod's true", pod: { runAsNonRoot: true }, container: { runAsNonRoot: false }, user: ROOT },
  {
    desc: "the container's runAsUser 0 over the pod's non-root one",
    pod: { runAsNonRoot: true, runAsUser: 1000 },
    container: { runAsUser: 0 },
    user: ANY_USER,
    refused: /runAsUser breaks non-root policy/,
  },
];

for (const testCase of RUN_AS_NON_ROOT_CASES) {
  test(`runAsNonRoot: ${testCase.desc}`, () => {
    const container = makeContainer({ securityContext: testCase.container });
    const pod = makePod({ containers: [container], securityContext: testCase.pod });
    const build = () => containerSecurityContext(pod, container, '/var/lib/kubelet', testCase.user);
    if (testCase.refused) assert.throws(build, { code: 'SHARDLET_CREATE_CONTAINER_CONFIG', message: testCase.refused });
    else assert.doesNotThrow(build);
  });
}

test('without runAsUser the runtime is told the image user that was verified: a uid, else the name', () => {
  const pod = makePod();
  const container = pod.spec!.containers[0]!;
  const numeric = containerSecurityContext(pod, container, '/var/lib/kubelet', { uid: 65532 });
  assert.deepEqual([numeric.run_as_user, numeric.run_as_username], [{ value: 65532 }, undefined]);
  const named = containerSecurityContext(pod, container, '/var/lib/kubelet', { username: 'app' });
  assert.deepEqual([named.run_as_user, named.run_as_username], [undefined, 'app']);
  const root = containerSecurityContext(pod, container, '/var/lib/kubelet', ROOT);
  assert.deepEqual(root.run_as_user, { value: 0 });
  const explicit = makeContainer({ securityContext: { runAsUser: 4242 } });
  const own = containerSecurityContext(makePod({ containers: [explicit] }), explicit, '/var/lib/kubelet', { username: 'app' });
  assert.deepEqual([own.run_as_user, own.run_as_username], [{ value: 4242 }, undefined], 'runAsUser wins over the image');
});

interface AppArmorCase {
  desc: string;
  container?: V1SecurityContext;
  pod?: V1PodSecurityContext;
  annotations?: Record<string, string>;
  want?: { apparmor: unknown; apparmor_profile: string };
  refused?: RegExp;
}

const RUNTIME_DEFAULT = { apparmor: { profile_type: 'RuntimeDefault' }, apparmor_profile: 'runtime/default' };
const UNCONFINED = { apparmor: { profile_type: 'Unconfined' }, apparmor_profile: 'unconfined' };
const localhost = (name: string) => ({ apparmor: { profile_type: 'Localhost', localhost_ref: name }, apparmor_profile: `localhost/${name}` });
const ANNOTATION = 'container.apparmor.security.beta.kubernetes.io/app';

const APPARMOR_CASES: AppArmorCase[] = [
  { desc: 'no profile asked for leaves the runtime default' },
  { desc: 'container RuntimeDefault', container: { appArmorProfile: { type: 'RuntimeDefault' } }, want: RUNTIME_DEFAULT },
  { desc: 'container Unconfined', container: { appArmorProfile: { type: 'Unconfined' } }, want: UNCONFINED },
  {
    desc: 'container Localhost',
    container: { appArmorProfile: { type: 'Localhost', localhostProfile: 'k8s-deny-write' } },
    want: localhost('k8s-deny-write'),
  },
  { desc: 'pod profile when the container has none', pod: { appArmorProfile: { type: 'RuntimeDefault' } }, want: RUNTIME_DEFAULT },
  {
    desc: "the container's profile over the pod's",
    pod: { appArmorProfile: { type: 'Unconfined' } },
    container: { appArmorProfile: { type: 'Localhost', localhostProfile: 'p' } },
    want: localhost('p'),
  },
  { desc: 'deprecated annotation runtime/default', annotations: { [ANNOTATION]: 'runtime/default' }, want: RUNTIME_DEFAULT },
  { desc: 'deprecated annotation unconfined', annotations: { [ANNOTATION]: 'unconfined' }, want: UNCONFINED },
  { desc: 'deprecated annotation localhost/<name>', annotations: { [ANNOTATION]: 'localhost/audit' }, want: localhost('audit') },
  {
    desc: "the annotation over the pod's field",
    annotations: { [ANNOTATION]: 'localhost/audit' },
    pod: { appArmorProfile: { type: 'Unconfined' } },
    want: localhost('audit'),
  },
  {
    desc: "the container's field over the annotation",
    annotations: { [ANNOTATION]: 'unconfined' },
    container: { appArmorProfile: { type: 'RuntimeDefault' } },
    want: RUNTIME_DEFAULT,
  },
  { desc: 'an annotation for another container is not read', annotations: { 'container.apparmor.security.beta.kubernetes.io/other': 'unconfined' } },
  { desc: 'an unknown annotation value counts as none', annotations: { [ANNOTATION]: 'complain' } },
  { desc: 'Localhost without a name', container: { appArmorProfile: { type: 'Localhost' } }, refused: /missing localhost apparmor profile name/ },
  { desc: 'Localhost with a blank name', container: { appArmorProfile: { type: 'Localhost', localhostProfile: ' ' } }, refused: /missing localhost/ },
  { desc: 'an unknown type', container: { appArmorProfile: { type: 'Enforce' } }, refused: /unknown apparmor profile type: "Enforce"/ },
];

for (const testCase of APPARMOR_CASES) {
  test(`appArmor: ${testCase.desc}`, () => {
    const container = makeContainer({ securityContext: testCase.container });
    const pod = makePod({ containers: [container], securityContext: testCase.pod }, { annotations: testCase.annotations ?? {} });
    const build = () => containerSecurityContext(pod, container, '/var/lib/kubelet', ANY_USER);
    if (testCase.refused) {
      assert.throws(build, { code: 'SHARDLET_CREATE_CONTAINER_CONFIG', message: testCase.refused });
      return;
    }
    const context = build();
    assert.deepEqual({ apparmor: context.apparmor, apparmor_profile: context.apparmor_profile }, testCase.want ?? { apparmor: undefined, apparmor_profile: undefined });
  });
}

test('a runAsUser or runAsGroup that is not an ID is refused; null is unset, as Go decodes it', () => {
  const build = (pod: V1PodSecurityContext, own: V1SecurityContext = {}) => {
    const container = makeContainer({ securityContext: own });
    return containerSecurityContext(makePod({ containers: [container], securityContext: pod }), container, '/var/lib/kubelet', { uid: 1000 });
  };
  // A manifest is JSON data: what the API types call a number may be anything.
  const loose = (value: unknown) => value as number;
  for (const value of ['0', '1000', 1.5, -1, 2_147_483_648, true, {}]) {
    assert.throws(() => build({ runAsNonRoot: true }, { runAsUser: loose(value) }), { code: 'SHARDLET_CREATE_CONTAINER_CONFIG', message: /runAsUser: Invalid value/ }, String(value));
    assert.throws(() => build({ runAsGroup: loose(value) }), { message: /runAsGroup: Invalid value/ }, String(value));
  }
  const unset = build({ runAsNonRoot: true, runAsUser: loose(null), runAsGroup: loose(null) });
  assert.deepEqual([unset.run_as_user, unset.run_as_group], [{ value: 1000 }, undefined], "null leaves the image's verified uid, never an empty (root) value");
});

test('the pod\'s supplementalGroupsPolicy reaches the runtime in the container and sandbox contexts; Merge when unset', async () => {
  const { sandboxSecurityContext } = await import('../../../src/workers/kuberuntime/security-context.js');
  const strict = makePod({ securityContext: { supplementalGroups: [5000], supplementalGroupsPolicy: 'Strict' } });
  assert.equal(containerSecurityContext(strict, makeContainer(), '/var/lib/kubelet', ANY_USER).supplemental_groups_policy, 'Strict');
  assert.equal(sandboxSecurityContext(strict).supplemental_groups_policy, 'Strict');
  assert.deepEqual(containerSecurityContext(strict, makeContainer(), '/var/lib/kubelet', ANY_USER).supplemental_groups, [5000]);
  const unset = makePod();
  assert.equal(containerSecurityContext(unset, makeContainer(), '/var/lib/kubelet', ANY_USER).supplemental_groups_policy, 'Merge');
  assert.equal(sandboxSecurityContext(unset).supplemental_groups_policy, 'Merge');
});
