// The preStop hook as killContainer runs it: before StopContainer, inside the grace
// period and counted against it, a failing hook still stops the container with a
// FailedPreStopHook event, and a probe kill uses the probe's own grace period.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import type { CriClient } from '../../../src/shared/cri/client.js';
import type { RuntimeContainer } from '../../../src/shared/runtime-pod.js';
import type { PodEventRecord } from '../../../src/shared/shard-protocol.js';
import type { Container, Pod } from '../../../src/shared/types.js';
import { killContainer, killPod } from '../../../src/workers/kuberuntime/kill-pod.js';
import type { RuntimeDeps } from '../../../src/workers/kuberuntime/runtime-deps.js';
import { makeSettings, POD_UID } from '../kuberuntime/fixtures.js';

function recordingDeps(execExitCode = 0): { deps: RuntimeDeps; calls: string[]; events: PodEventRecord[] } {
  const calls: string[] = [];
  const events: PodEventRecord[] = [];
  const cri = {
    execSync: async (req: { container_id: string; cmd: string[] }) => {
      calls.push(`ExecSync ${req.container_id} ${req.cmd.join(' ')}`);
      return { stdout: Buffer.from('out'), stderr: Buffer.alloc(0), exit_code: execExitCode };
    },
    stopContainer: async (req: { container_id: string; timeout: number }) => {
      calls.push(`StopContainer ${req.container_id} timeout=${req.timeout}`);
      return {};
    },
  } as unknown as CriClient;
  const publishEvent = (event: PodEventRecord) => void events.push(event);
  const deps = { cri, settings: makeSettings(), logger: pino({ level: 'silent' }), publishEvent } as unknown as RuntimeDeps;
  return { deps, calls, events };
}

const running: RuntimeContainer = {
  id: 'c1', name: 'app', hash: 'h', restartCount: 0, type: 'REGULAR', sandboxId: 's1', state: 'running', createdAtMs: 1,
  startedAtMs: 1, finishedAtMs: 0, exitCode: 0, reason: '', message: '', image: 'i', imageRef: 'i',
};

function podWith(container: Partial<Container>): Pod {
  return { metadata: { name: 'web', namespace: 'default', uid: POD_UID }, spec: { containers: [{ name: 'app', image: 'i', ...container }] } };
}

test('the preStop exec hook runs before StopContainer', async () => {
  const { deps, calls, events } = recordingDeps();
  const pod = podWith({ lifecycle: { preStop: { exec: { command: ['sh', '-c', 'echo bye'] } } } });
  await killContainer(deps, running, 30, 'Stopping pod', { pod });
  assert.deepEqual(calls, ['ExecSync c1 sh -c echo bye', 'StopContainer c1 timeout=30']);
  assert.deepEqual(events.map((e) => e.reason), ['Killing']);
});

test('a failing preStop hook is reported (without its output) and the container is stopped all the same', async () => {
  const { deps, calls, events } = recordingDeps(1);
  const pod = podWith({ lifecycle: { preStop: { exec: { command: ['false'] } } } });
  await killContainer(deps, running, 30, 'Stopping pod', { pod });
  assert.equal(calls.at(-1), 'StopContainer c1 timeout=30');
  const failed = events.find((e) => e.reason === 'FailedPreStopHook');
  assert.equal(failed?.type, 'Warning');
  assert.equal(failed?.message, 'PreStopHook failed');
});

test("the preStop hook's time is taken off the grace period StopContainer gets", async () => {
  const { deps, calls } = recordingDeps();
  const pod = podWith({ lifecycle: { preStop: { sleep: { seconds: 1 } } } });
  await killContainer(deps, running, 5, 'Stopping pod', { pod });
  const timeout = Number(/timeout=(\d+)/.exec(calls.at(-1) ?? '')?.[1]);
  assert.ok(timeout < 5 && timeout >= 2, `StopContainer got ${timeout}s of 5s after a 1 s hook`);
});

test('a preStop hook that outlasts the grace period is given up on; StopContainer still gets the minimum', async () => {
  const { deps, calls } = recordingDeps();
  const pod = podWith({ lifecycle: { preStop: { sleep: { seconds: 600 } } } });
  await killContainer(deps, running, 1, 'Stopping pod', { pod });
  assert.deepEqual(calls, ['StopContainer c1 timeout=2']);
});

test("a liveness kill uses the probe's terminationGracePeriodSeconds and says why in the Killing event", async () => {
  const { deps, calls, events } = recordingDeps();
  const pod = podWith({ livenessProbe: { exec: { command: ['true'] }, terminationGracePeriodSeconds: 7 } });
  await killContainer(deps, running, 30, 'LivenessProbe', { pod, eventMessage: 'Container app failed liveness probe, will be restarted' });
  assert.deepEqual(calls, ['StopContainer c1 timeout=7']);
  assert.equal(events[0].message, 'Container app failed liveness probe, will be restarted');
});

test("an orphan's preStop hook, restored from its container's annotation, still runs before the stop", async () => {
  const { deps, calls } = recordingDeps();
  const cri = deps.cri as unknown as Record<string, unknown>;
  cri.stopPodSandbox = async () => ({});
  const orphan = { ...running, preStop: { exec: { command: ['sh', '-c', 'echo bye'] } }, terminationGracePeriodSeconds: 10 };
  const runtime = { uid: POD_UID, name: 'web', namespace: 'default', sandboxes: [], containers: [orphan] };
  await killPod(deps, runtime, undefined);
  assert.deepEqual(calls, ['ExecSync c1 sh -c echo bye', 'StopContainer c1 timeout=10']);
});
