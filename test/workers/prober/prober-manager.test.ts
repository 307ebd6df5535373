// The shard's prober manager as a sync drives it: which containers get workers, that
// only a change of a result leaves the shard, that Unhealthy events wait for the
// pod's next sync, and what terminating and terminated stop.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import type { RuntimeContainer, RuntimePodStatus } from '../../../src/shared/runtime-pod.js';
import type { ProbeResultMessage } from '../../../src/shared/shard-protocol.js';
import type { Pod, Probe } from '../../../src/shared/types.js';
import type { ProbeOutcome } from '../../../src/workers/prober/probe-outcome.js';
import { ProberManager } from '../../../src/workers/prober/prober-manager.js';
import { waitUntil } from '../../helpers/kubelet-process.js';

const probe: Probe = { tcpSocket: { port: 80 }, periodSeconds: 1 };

function pod(): Pod {
  return {
    metadata: { name: 'web', namespace: 'default', uid: 'u1' },
    spec: {
      initContainers: [
        { name: 'setup', image: 'i' },
        { name: 'proxy', image: 'i', restartPolicy: 'Always', readinessProbe: probe },
      ],
      containers: [{ name: 'app', image: 'i', readinessProbe: probe, livenessProbe: probe }, { name: 'plain', image: 'i' }],
    },
  };
}

function container(name: string, id: string): RuntimeContainer {
  return {
    id, name, hash: '', restartCount: 0, type: 'REGULAR', sandboxId: 's1', state: 'running', createdAtMs: 1,
    startedAtMs: 1, finishedAtMs: 0, exitCode: 0, reason: '', message: '', image: 'i', imageRef: 'i',
  };
}

const runtime: RuntimePodStatus = {
  uid: 'u1', name: 'web', namespace: 'default',
  sandboxes: [{ id: 's1', state: 'ready', attempt: 0, createdAtMs: 1, ips: ['10.0.0.9'], hostNetwork: false }],
  containers: [container('proxy', 'c-proxy'), container('app', 'c-app'), container('plain', 'c-plain')],
};

function manager(outcome: () => ProbeOutcome) {
  const changes: ProbeResultMessage[] = [];
  const probed: string[] = [];
  const prober = new ProberManager({
    run: async (_probe, subject) => {
      probed.push(`${subject.container.name}@${subject.podIP}`);
      return outcome();
    },
    logger: pino({ level: 'silent' }),
    onResultChange: (message) => changes.push(message),
    hostIP: '192.168.1.10',
    random: () => 0,
  });
  return { prober, changes, probed };
}

test('workers for app containers and sidecars only; the first passing readiness probe crosses once, repeats do not', async () => {
  const { prober, changes, probed } = manager(() => ({ verdict: 'success', output: '' }));
  try {
    prober.syncPod(pod(), runtime);
    assert.equal(prober.stats().workers, 3, 'proxy readiness, app readiness and liveness');
    assert.deepEqual(prober.resultsFor(runtime).readiness, { 'c-proxy': 'failure', 'c-app': 'failure' });
    await waitUntil(async () => changes.length >= 2, 10_000, 'readiness results');
    assert.deepEqual(changes.map((c) => `${c.containerName} ${c.probeType} ${c.result}`).sort(), ['app readiness success', 'proxy readiness success']);
    assert.ok(probed.every((p) => p.endsWith('@10.0.0.9')), 'probed at the pod IP');
    const probesSoFar = probed.length;
    await waitUntil(async () => probed.length >= probesSoFar + 3, 10_000, 'more probes');
    assert.equal(changes.length, 2, 'liveness success is the initial value and repeats are not news');
  } finally {
    prober.close();
  }
});

test('failed probes leave Unhealthy events for the next sync; terminating stops liveness, terminated stops everything', async () => {
  const { prober, changes } = manager(() => ({ verdict: 'failure', output: 'dial tcp 10.0.0.9:80: connect: connection refused' }));
  try {
    prober.syncPod(pod(), runtime);
    await waitUntil(async () => changes.some((c) => c.probeType === 'liveness'), 15_000, 'liveness failure after 3 failures');
    const events = prober.takeEvents('u1');
    assert.ok(events.some((e) => e.reason === 'Unhealthy' && e.message === 'Liveness probe failed: dial tcp 10.0.0.9:80: connect: connection refused' && e.fieldPath === 'spec.containers{app}'));
    assert.ok(events.some((e) => e.message.startsWith('Readiness probe failed') && e.fieldPath === 'spec.initContainers{proxy}'));
    assert.deepEqual(prober.takeEvents('u1'), [], 'taken once');
    prober.stopLivenessAndStartup('u1');
    assert.equal(prober.stats().workers, 2, 'readiness goes on while the pod terminates');
    prober.removePod('u1');
    assert.equal(prober.stats().workers, 0);
    assert.deepEqual(prober.resultsFor(runtime), { liveness: {}, readiness: {}, startup: {} });
  } finally {
    prober.close();
  }
});

test('a hostNetwork pod is probed at the node IP', async () => {
  const { prober, probed } = manager(() => ({ verdict: 'success', output: '' }));
  try {
    const hostPod = pod();
    hostPod.spec!.hostNetwork = true;
    prober.syncPod(hostPod, { ...runtime, sandboxes: [{ ...runtime.sandboxes[0], ips: [] }] });
    await waitUntil(async () => probed.length > 0, 10_000, 'a probe');
    assert.ok(probed.every((p) => p.endsWith('@192.168.1.10')));
  } finally {
    prober.close();
  }
});
