import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import type { KubeClients } from '../../../../src/main/cluster/apiclient/kube-client.js';
import { StatusManager } from '../../../../src/main/cluster/status/status-manager.js';
import { Backoff } from '../../../../src/shared/backoff.js';
import type { Pod, PodStatus } from '../../../../src/shared/types.js';

interface LogLine {
  level: number;
  msg: string;
  [key: string]: unknown;
}

function capturingLogger(lines: LogLine[]) {
  return pino({ level: 'info' }, { write: (text: string) => void lines.push(JSON.parse(text)) });
}

/** A core client whose pods/status patches fail while `down` is true. */
function fakeClients(state: { down: boolean; patches: Array<{ name: string; body: Record<string, unknown> }>; failures: number }): KubeClients {
  const core = {
    patchNamespacedPodStatus: async ({ name, body }: { name: string; body: Record<string, unknown> }) => {
      if (state.down) {
        state.failures++;
        throw new Error('connect ECONNREFUSED 127.0.0.1:6443');
      }
      state.patches.push({ name, body });
      return {};
    },
    deleteNamespacedPod: async () => ({}),
  };
  return { core, limiter: { take: async () => undefined } } as unknown as KubeClients;
}

function pod(name: string): Pod {
  return { metadata: { name, namespace: 'default', uid: `uid-${name}` }, spec: { containers: [{ name: 'c', image: 'i' }] } };
}

const running: PodStatus = { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] };

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 2));
}

test('an outage is logged once when it starts and once when it ends, with the writes that waited; retries back off', async () => {
  const lines: LogLine[] = [];
  const state = { down: true, patches: [] as Array<{ name: string; body: Record<string, unknown> }>, failures: 0 };
  const delays: number[] = [];
  const backoff = new Backoff({ initialMs: 1, multiplier: 2, maxMs: 8, jitter: 0 });
  const next = backoff.next.bind(backoff);
  backoff.next = () => {
    const delay = next();
    delays.push(delay);
    return delay;
  };
  const manager = new StatusManager(fakeClients(state), capturingLogger(lines), { backoff });
  for (const name of ['a', 'b', 'c']) manager.setPodStatus(pod(name), running);
  await until(() => state.failures >= 6);
  state.down = false;
  await until(() => state.patches.length === 3);
  manager.stop();
  const warnings = lines.filter((l) => l.level === 40);
  assert.equal(warnings.length, 1, `one warning for the whole outage: ${JSON.stringify(warnings)}`);
  assert.equal(warnings[0].code, 'SHARDLET_API_UNAVAILABLE');
  const ended = lines.filter((l) => /work again/.test(l.msg));
  assert.equal(ended.length, 1);
  assert.equal(ended[0].podsWaited, 3);
  assert.deepEqual(delays.slice(0, 5), [1, 2, 4, 8, 8], 'exponential, capped');
  assert.deepEqual(state.patches.map((p) => p.name).sort(), ['a', 'b', 'c']);
});

test('a status the server already holds is not written again; a changed message is', async () => {
  const state = { down: false, patches: [] as Array<{ name: string; body: Record<string, unknown> }>, failures: 0 };
  const manager = new StatusManager(fakeClients(state), pino({ level: 'silent' }));
  const waiting = (message: string): PodStatus => ({
    phase: 'Pending',
    containerStatuses: [{ name: 'c', image: 'i', imageID: '', ready: false, restartCount: 0, state: { waiting: { reason: 'ErrImagePull', message } } }],
  });
  const p = { ...pod('a'), status: waiting('500') };
  manager.setPodStatus(p, waiting('500'));
  manager.setPodStatus(p, waiting('503'));
  await until(() => state.patches.length === 1);
  manager.setPodStatus(p, waiting('503'));
  // Writes go out in the order they were asked for: once b's is out, a second one of a's would have been too.
  manager.setPodStatus(pod('b'), running);
  await until(() => state.patches.some((patch) => patch.name === 'b'));
  assert.deepEqual(state.patches.map((patch) => patch.name), ['a', 'b'], 'the same status again is no write');
  const body = state.patches[0].body as { status: PodStatus; metadata: { uid: string } };
  assert.equal(body.metadata.uid, 'uid-a');
  assert.equal(body.status.containerStatuses?.[0].state?.waiting?.message, '503');
  manager.stop();
});
