// What probe results do to the pure parts: ready / started and the Ready and
// ContainersReady conditions in the status, liveness and startup kills in
// computePodActions (app containers and sidecars), as upstream.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { computePodActions } from '../../../src/shared/kuberuntime/compute-pod-actions.js';
import { emptyPodProbeResults, type PodProbeResults } from '../../../src/shared/prober/probe-results.js';
import { generatePodStatus } from '../../../src/shared/status/generate-pod-status.js';
import type { Pod } from '../../../src/shared/types.js';
import { instance, makePod, NOW_MS, runtimeOf, sandbox, spec } from '../runtime-fixtures.js';

const probe = { httpGet: { port: 8080, path: '/healthz' } };

function results(extra: Partial<PodProbeResults>): PodProbeResults {
  return { ...emptyPodProbeResults(), ...extra };
}

function statusOf(pod: Pod, probes: PodProbeResults) {
  const runtime = runtimeOf([sandbox()], (pod.spec?.containers ?? []).map((c) => instance(pod, c.name)));
  return generatePodStatus(pod, runtime, { nowMs: NOW_MS, hostIP: '192.168.1.10', waitingReasons: {}, probes });
}

const condition = (status: ReturnType<typeof statusOf>, type: string) => status.conditions?.find((c) => c.type === type)?.status;

test('a running container with a readiness probe is not ready until the probe succeeds; one without is ready when running', () => {
  const pod = makePod({}, [spec('a', { readinessProbe: probe }), spec('b')]);
  const failing = statusOf(pod, results({ readiness: { 'a-0': 'failure' } }));
  assert.deepEqual(failing.containerStatuses?.map((s) => `${s.name}:${s.ready}`), ['a:false', 'b:true']);
  assert.equal(condition(failing, 'Ready'), 'False');
  assert.equal(condition(failing, 'ContainersReady'), 'False');
  assert.match(failing.conditions?.find((c) => c.type === 'Ready')?.message ?? '', /containers with unready status: \[a\]/);
  const passing = statusOf(pod, results({ readiness: { 'a-0': 'success' } }));
  assert.equal(condition(passing, 'Ready'), 'True');
  assert.equal(condition(passing, 'ContainersReady'), 'True');
});

test('a readiness probe without any result yet means not ready', () => {
  const pod = makePod({}, [spec('a', { readinessProbe: probe })]);
  assert.equal(statusOf(pod, emptyPodProbeResults()).containerStatuses?.[0].ready, false);
});

test('a container with a startup probe is neither started nor ready until it succeeds', () => {
  const pod = makePod({}, [spec('a', { startupProbe: probe })]);
  const pending = statusOf(pod, emptyPodProbeResults()).containerStatuses?.[0];
  assert.equal(pending?.started, false);
  assert.equal(pending?.ready, false);
  const started = statusOf(pod, results({ startup: { 'a-0': 'success' } })).containerStatuses?.[0];
  assert.equal(started?.started, true);
  assert.equal(started?.ready, true);
});

test('a liveness failure kills the running container with upstream message and restarts it', () => {
  const pod = makePod({}, [spec('a', { livenessProbe: probe }), spec('b')]);
  const runtime = runtimeOf([sandbox()], [instance(pod, 'a'), instance(pod, 'b')]);
  const actions = computePodActions(pod, runtime, NOW_MS, results({ liveness: { 'a-0': 'failure' } }));
  assert.deepEqual(actions.containersToKill, [{ id: 'a-0', name: 'a', reason: 'LivenessProbe', message: 'Container a failed liveness probe, will be restarted' }]);
  assert.deepEqual(actions.containersToStart, ['a']);
  assert.equal(actions.killPod, false);
  assert.deepEqual(actions.backoff, [], 'a running container killed by its probe is not held by CrashLoopBackOff');
});

test('a startup failure kills too; with restartPolicy Never the container is not restarted and the pod is done', () => {
  const pod = makePod({ restartPolicy: 'Never' }, [spec('a', { startupProbe: probe })]);
  const runtime = runtimeOf([sandbox()], [instance(pod, 'a')]);
  const actions = computePodActions(pod, runtime, NOW_MS, results({ startup: { 'a-0': 'failure' } }));
  assert.deepEqual(actions.containersToKill.map((k) => `${k.reason}: ${k.message}`), ['StartupProbe: Container a failed startup probe']);
  assert.deepEqual(actions.containersToStart, []);
  assert.equal(actions.killPod, true);
});

test('liveness success (or no result) keeps the container', () => {
  const pod = makePod({}, [spec('a', { livenessProbe: probe })]);
  const runtime = runtimeOf([sandbox()], [instance(pod, 'a')]);
  for (const probes of [results({ liveness: { 'a-0': 'success' } }), emptyPodProbeResults(), undefined]) {
    const actions = computePodActions(pod, runtime, NOW_MS, probes);
    assert.deepEqual(actions.containersToKill, []);
    assert.deepEqual(actions.containersToStart, []);
  }
});

test('a sidecar that fails its liveness probe is restarted; one whose startup probe has not passed holds the app containers back', () => {
  const sidecar = spec('proxy', { restartPolicy: 'Always', livenessProbe: probe, startupProbe: probe });
  const pod = makePod({ initContainers: [sidecar] }, [spec('a')]);
  const running = runtimeOf([sandbox()], [instance(pod, 'proxy')]);
  const notStarted = computePodActions(pod, running, NOW_MS, emptyPodProbeResults());
  assert.deepEqual(notStarted.containersToStart, [], 'app containers wait for the sidecar to start');
  const started = computePodActions(pod, running, NOW_MS, results({ startup: { 'proxy-0': 'success' } }));
  assert.deepEqual(started.containersToStart, ['a']);
  const withApp = runtimeOf([sandbox()], [instance(pod, 'proxy'), instance(pod, 'a')]);
  const dead = computePodActions(pod, withApp, NOW_MS, results({ startup: { 'proxy-0': 'success' }, liveness: { 'proxy-0': 'failure' } }));
  assert.deepEqual(dead.containersToKill.map((k) => `${k.id} ${k.reason}: ${k.message}`), ['proxy-0 LivenessProbe: Init container proxy failed liveness probe']);
  assert.equal(dead.nextInitContainerToStart, 'proxy');
});
