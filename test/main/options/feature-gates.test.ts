// The 1.36 kubelet's feature gates: every 1.35 and 1.36 gate is known with its
// default, removed gates are refused with component-base's message, a gate locked
// to its default refuses the other value, and --feature-gates merges over the
// config file's gates key by key as upstream's kubeletConfigFlagPrecedence does.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorCodes, ShardletError } from '../../../src/shared/errors.js';
import { parseFlags } from '../../../src/main/options/flags.js';
import { mergeFlags, parseKubeletConfig } from '../../../src/main/options/kubelet-config.js';
import { featureGatesError, isFeatureEnabled } from '../../../src/main/options/feature-gates.js';
import { FEATURE_GATE_SPECS } from '../../../src/main/options/feature-gate-specs.js';

const env = { hostname: () => 'node-a' };
const HEADER = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n';

function fails(code: string, ...mentions: string[]) {
  return (err: unknown) => err instanceof ShardletError && err.code === code && mentions.every((text) => err.message.includes(text));
}

test('the node-side gates of 1.35 and 1.36 are known with their stage and 1.36 default', () => {
  const expected: Array<[string, string, boolean]> = [
    ['PodObservedGenerationTracking', 'GA', true],
    ['SupplementalGroupsPolicy', 'GA', true],
    ['InPlacePodVerticalScaling', 'GA', true],
    ['UserNamespacesSupport', 'GA', true],
    ['ImageVolume', 'GA', true],
    ['KubeletFineGrainedAuthz', 'GA', true],
    ['ContainerRestartRules', 'Beta', true],
    ['KubeletEnsureSecretPulledImages', 'Beta', true],
    ['PodLevelResources', 'Beta', true],
    ['InPlacePodLevelResourcesVerticalScaling', 'Beta', true],
    ['EnvFiles', 'Beta', true],
    ['HostnameOverride', 'Beta', true],
    ['KubeletCrashLoopBackOffMax', 'Beta', true],
    ['ReloadKubeletClientCAFile', 'Beta', true],
    ['RestartAllContainersOnContainerExits', 'Beta', true],
    ['NodeDeclaredFeatures', 'Beta', true],
    ['ChangeContainerStatusOnKubeletRestart', 'Deprecated', false],
    ['UserNamespacesHostNetworkSupport', 'Alpha', false],
    ['ImageVolumeWithDigest', 'Alpha', false],
    ['PodLogsQuerySplitStreams', 'Alpha', false],
  ];
  for (const [name, stage, enabledByDefault] of expected) {
    const spec = FEATURE_GATE_SPECS.get(name);
    assert.ok(spec, `${name} is known`);
    assert.deepEqual([spec.stage, spec.enabledByDefault], [stage, enabledByDefault], name);
    assert.equal(isFeatureEnabled({}, name), enabledByDefault, `${name} defaults to ${enabledByDefault}`);
  }
  assert.doesNotThrow(() => parseFlags([`--feature-gates=${expected.map(([name, , on]) => `${name}=${on}`).join(',')}`]));
});

test('gates removed upstream, and names that were never gates, are refused as unrecognized', () => {
  for (const name of ['CSIMigrationPortworx', 'InTreePluginPortworxUnregister', 'CronJobsScheduledAnnotation', 'StatefulSetAutoDeletePVC', 'UserNamespacesPodSecurityStandards', 'LoadBalancerIPMode', 'CPUCFSQuotaPeriod', 'RuntimeClassInImageCriAPI']) {
    assert.equal(featureGatesError({ [name]: true }), `unrecognized feature gate: ${name}`, name);
    assert.throws(() => parseFlags([`--feature-gates=${name}=true`]), fails(ErrorCodes.FLAG_INVALID, '--feature-gates', `unrecognized feature gate: ${name}`));
  }
  // Their upstream names are these.
  assert.equal(featureGatesError({ CustomCPUCFSQuotaPeriod: true, RuntimeClassInImageCriApi: true }), undefined);
});

test('a gate locked to its default refuses the other value, from the flag and from the file', () => {
  assert.throws(
    () => parseFlags(['--feature-gates=PodObservedGenerationTracking=false']),
    fails(ErrorCodes.FLAG_INVALID, '--feature-gates', 'cannot set feature gate PodObservedGenerationTracking to false, feature is locked to true'),
  );
  const file = parseKubeletConfig(`${HEADER}featureGates:\n  SupplementalGroupsPolicy: false\n`, 'k.yaml');
  assert.throws(
    () => mergeFlags(file, {}, env),
    fails(ErrorCodes.CONFIG_INVALID, 'k.yaml: field "featureGates"', 'cannot set feature gate SupplementalGroupsPolicy to false, feature is locked to true'),
  );
  assert.equal(featureGatesError({ GitRepoVolumeDriver: true }), 'cannot set feature gate GitRepoVolumeDriver to true, feature is locked to false');
});

test('setting a GA or deprecated gate is allowed, with upstream\'s warning once per gate', () => {
  const options = mergeFlags(parseKubeletConfig(`${HEADER}featureGates:\n  InPlacePodVerticalScaling: true\n  KMSv1: false\n  ContainerRestartRules: true\n`, 'k.yaml'), {}, env);
  assert.deepEqual(options.startupNotices.featureGateWarnings, [
    'Setting GA feature gate InPlacePodVerticalScaling=true. It will be removed in a future release.',
    'Setting deprecated feature gate KMSv1=false. It will be removed in a future release.',
  ]);
});

test('AllAlpha and AllBeta turn on the alpha and beta gates not set explicitly', () => {
  assert.equal(isFeatureEnabled({ AllAlpha: true }, 'PodLogsQuerySplitStreams'), true);
  assert.equal(isFeatureEnabled({ AllAlpha: true, PodLogsQuerySplitStreams: false }, 'PodLogsQuerySplitStreams'), false);
  assert.equal(isFeatureEnabled({ AllBeta: true }, 'ClusterTrustBundle'), true);
  assert.equal(isFeatureEnabled({ AllBeta: true }, 'PodLogsQuerySplitStreams'), false);
  assert.equal(isFeatureEnabled({}, 'NoSuchGate'), false);
});

test('--feature-gates merges over the config file\'s gates key by key; the flag wins a key both set', () => {
  const file = parseKubeletConfig(`${HEADER}featureGates:\n  EventedPLEG: true\n  ContainerRestartRules: false\n`, 'k.yaml');
  const options = mergeFlags(file, parseFlags(['--feature-gates=ContainerRestartRules=true,PodLogsQuerySplitStreams=true']), env);
  assert.deepEqual(options.featureGates, { EventedPLEG: true, ContainerRestartRules: true, PodLogsQuerySplitStreams: true });
});
