// The prober worker's rules, driven round by round (doProbe) with a fake clock and a
// scripted probe: thresholds, initial delay, the startup gate, hold after a liveness
// failure, reset for a new container instance, and that only changes are reported.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ProbeResult, ProbeType } from '../../../src/shared/prober/probe-results.js';
import type { Container, Probe } from '../../../src/shared/types.js';
import type { ProbeOutcome } from '../../../src/workers/prober/probe-outcome.js';
import { ProbeWorker, type ProbedInstance, type ProbeWorkerHost } from '../../../src/workers/prober/probe-worker.js';

interface Harness {
  worker: ProbeWorker;
  clock: { nowMs: number };
  /** Results the worker stored, by `<type>:<containerId>`. */
  results: Map<string, ProbeResult>;
  /** Changes that would cross to the main thread. */
  reported: string[];
  /** The next outcomes the probe returns, in order (then success). */
  script: ProbeOutcome[];
  probesRun: number;
}

function harness(type: ProbeType, probe: Probe, container: Partial<Container> = {}, restartNever = false): Harness {
  const h = { clock: { nowMs: 1_000_000 }, results: new Map<string, ProbeResult>(), reported: [] as string[], script: [] as ProbeOutcome[], probesRun: 0 } as Harness;
  const host: ProbeWorkerHost = {
    nowMs: () => h.clock.nowMs,
    run: async () => {
      h.probesRun++;
      return h.script.shift() ?? { verdict: 'success', output: '' };
    },
    setResult: (id, t, result, report) => {
      const key = `${t}:${id}`;
      const previous = h.results.get(key);
      if (result === undefined) h.results.delete(key);
      else h.results.set(key, result);
      if (report && previous !== result) h.reported.push(`${t}:${id}=${result}`);
    },
    removeResult: (id, t) => h.results.delete(`${t}:${id}`),
    startupResult: (id) => h.results.get(`startup:${id}`),
    onProbed: () => undefined,
  };
  h.worker = new ProbeWorker({ type, probe, container: { name: 'app', ...container }, restartNever }, host);
  return h;
}

function running(id: string, startedAtMs: number): ProbedInstance {
  return { id, running: true, terminated: false, startedAtMs, podIP: '10.0.0.5' };
}

const fail = (output = 'boom'): ProbeOutcome => ({ verdict: 'failure', output });

test('readiness starts as failure and turns success after successThreshold passes in a row', async () => {
  const h = harness('readiness', { successThreshold: 2, failureThreshold: 3 });
  h.worker.update(running('c1', h.clock.nowMs - 60_000));
  assert.equal(h.results.get('readiness:c1'), 'failure');
  await h.worker.doProbe();
  assert.deepEqual(h.reported, []);
  await h.worker.doProbe();
  assert.deepEqual(h.reported, ['readiness:c1=success']);
  // A repeated result is not news.
  await h.worker.doProbe();
  assert.deepEqual(h.reported, ['readiness:c1=success']);
});

test('a failure changes the result only after failureThreshold failures in a row; a success in between restarts the count', async () => {
  const h = harness('readiness', { failureThreshold: 3 });
  h.worker.update(running('c1', 0));
  await h.worker.doProbe();
  assert.deepEqual(h.reported, ['readiness:c1=success']);
  h.script.push(fail(), fail(), { verdict: 'success', output: '' }, fail(), fail());
  for (let round = 0; round < 5; round++) await h.worker.doProbe();
  assert.deepEqual(h.reported, ['readiness:c1=success'], 'never three failures in a row');
  h.script.push(fail());
  await h.worker.doProbe();
  assert.deepEqual(h.reported, ['readiness:c1=success', 'readiness:c1=failure']);
});

test('no probe runs before initialDelaySeconds since the container started', async () => {
  const h = harness('liveness', { initialDelaySeconds: 30 });
  h.worker.update(running('c1', h.clock.nowMs - 10_000));
  await h.worker.doProbe();
  assert.equal(h.probesRun, 0);
  h.clock.nowMs += 20_000;
  await h.worker.doProbe();
  assert.equal(h.probesRun, 1);
});

test('liveness and readiness wait for the startup probe to succeed', async () => {
  const startupProbe: Probe = { exec: { command: ['true'] } };
  const h = harness('liveness', { failureThreshold: 1 }, { startupProbe });
  h.worker.update(running('c1', 0));
  h.script.push(fail());
  await h.worker.doProbe();
  assert.equal(h.probesRun, 0, 'held off while not started');
  h.results.set('startup:c1', 'success');
  await h.worker.doProbe();
  assert.equal(h.probesRun, 1);
  assert.deepEqual(h.reported, ['liveness:c1=failure']);
});

test('a startup probe stops probing once it succeeded', async () => {
  const h = harness('startup', { failureThreshold: 3 });
  h.worker.update(running('c1', 0));
  assert.equal(h.results.get('startup:c1'), undefined, 'not started until it passes');
  await h.worker.doProbe();
  assert.deepEqual(h.reported, ['startup:c1=success']);
  await h.worker.doProbe();
  assert.equal(h.probesRun, 1);
});

test('after a liveness failure the worker holds until a new container instance, which starts from success', async () => {
  const h = harness('liveness', { failureThreshold: 2 });
  h.worker.update(running('c1', 0));
  assert.equal(h.results.get('liveness:c1'), 'success');
  h.script.push(fail(), fail(), fail());
  await h.worker.doProbe();
  await h.worker.doProbe();
  assert.deepEqual(h.reported, ['liveness:c1=failure']);
  await h.worker.doProbe();
  assert.equal(h.probesRun, 2, 'on hold: the condemned instance is not probed again');
  h.worker.update(running('c2', h.clock.nowMs));
  assert.equal(h.results.has('liveness:c1'), false, 'the old instance result is dropped');
  assert.equal(h.results.get('liveness:c2'), 'success');
  await h.worker.doProbe();
  assert.equal(h.probesRun, 3);
  assert.deepEqual(h.reported, ['liveness:c1=failure'], 'one failure is below the threshold of the new instance');
});

test('a probe that could not run (an error) counts neither way', async () => {
  const h = harness('liveness', { failureThreshold: 1 });
  h.worker.update(running('c1', 0));
  h.script.push({ verdict: 'unknown', output: '', error: 'rpc error' });
  await h.worker.doProbe();
  assert.deepEqual(h.reported, []);
  assert.equal(h.results.get('liveness:c1'), 'success');
});

test('a stopped container is not ready, and a worker of a finished Never pod stops', async () => {
  const h = harness('readiness', {}, {}, true);
  h.worker.update(running('c1', 0));
  await h.worker.doProbe();
  assert.equal(h.results.get('readiness:c1'), 'success');
  h.worker.update({ id: 'c1', running: false, terminated: true, startedAtMs: 0, podIP: '' });
  assert.equal(await h.worker.doProbe(), false);
  assert.equal(h.results.get('readiness:c1'), 'failure');
});

test('a warning (redirect to another host) counts as success', async () => {
  const h = harness('readiness', {});
  h.worker.update(running('c1', 0));
  h.script.push({ verdict: 'warning', output: 'Probe terminated redirects' });
  await h.worker.doProbe();
  assert.deepEqual(h.reported, ['readiness:c1=success']);
});
