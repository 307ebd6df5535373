import assert from 'node:assert/strict';
import { test } from 'node:test';
import { containerFieldPath, EventMessages, EventReasons, formatGoDurationMs } from '../../../src/shared/events/event-types.js';

test('durations print as Go time.Duration truncated to milliseconds', () => {
  const cases: Array<[number, string]> = [
    [0, '0s'],
    [7, '7ms'],
    [512, '512ms'],
    [1000, '1s'],
    [1200, '1.2s'],
    [1234.9, '1.234s'],
    [62_500, '1m2.5s'],
    [3_600_000, '1h0m0s'],
    [3_723_050, '1h2m3.05s'],
  ];
  for (const [ms, want] of cases) assert.equal(formatGoDurationMs(ms), want, String(ms));
});

test('messages in upstream wording', () => {
  const cases: Array<[string, string]> = [
    [EventMessages.pullingImage('busybox:1.35'), 'Pulling image "busybox:1.35"'],
    [
      EventMessages.pulledImage('busybox:1.35', 1200, 1500, 2_160_406),
      'Successfully pulled image "busybox:1.35" in 1.2s (1.5s including waiting). Image size: 2160406 bytes.',
    ],
    [EventMessages.imageAlreadyPresent('busybox:1.35'), 'Container image "busybox:1.35" already present on machine'],
    [EventMessages.errImageNeverPull('app:dev'), 'Container image "app:dev" is not present with pull policy of Never'],
    [EventMessages.createdContainer('app'), 'Created container: app'],
    [EventMessages.startedContainer('app'), 'Started container app'],
    [EventMessages.killingContainer('app'), 'Stopping container app'],
    [EventMessages.backOffRestartingContainer('app', 'p', 'ns', 'uid'), 'Back-off restarting failed container app in pod p_ns(uid)'],
    [EventMessages.failedCreatePodSandbox('boom'), 'Failed to create pod sandbox: boom'],
    [EventMessages.mountSetUpFailed('config', 'configmap "x" not found'), 'MountVolume.SetUp failed for volume "config" : configmap "x" not found'],
    [EventMessages.outOfResource('pods', 1, 110, 110), "Node didn't have enough resource: pods, requested: 1, used: 110, capacity: 110"],
    [EventMessages.startingKubelet(), 'Starting kubelet.'],
    [EventMessages.nodeStatus('node-1', EventReasons.NodeReady), 'Node node-1 status is now: NodeReady'],
  ];
  for (const [got, want] of cases) assert.equal(got, want);
  assert.equal(containerFieldPath('init', true), 'spec.initContainers{init}');
  assert.equal(EventReasons.OutOfPods, 'OutOfpods');
});
