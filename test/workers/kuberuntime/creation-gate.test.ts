// A shard's creation gate over the shared permits: creations wait for a permit,
// containers before sandboxes, every permit comes back whatever the calls did,
// and a creation stuck in the runtime does not hold its permit for ever.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CreationPermits } from '../../../src/shared/runtime-creation/creation-permits.js';
import { SharedCreationGate } from '../../../src/workers/kuberuntime/creation-gate.js';

/** A creation the test ends when it wants, and whether it has started. */
function heldCreation(): { started: Promise<void>; run: () => Promise<string>; finish: (error?: Error) => void } {
  let markStarted!: () => void;
  const started = new Promise<void>((resolve) => (markStarted = resolve));
  let finish!: (error?: Error) => void;
  const done = new Promise<string>((resolve, reject) => (finish = (error) => (error ? reject(error) : resolve('done'))));
  return { started, finish, run: () => (markStarted(), done) };
}

test('creations beyond the limit wait, and a waiting container creation goes before a waiting sandbox creation', async () => {
  const permits = CreationPermits.create(1, 1);
  const gate = new SharedCreationGate(permits, 0);
  const order: string[] = [];
  const first = heldCreation();
  const running = gate.run('sandbox', first.run);
  await first.started;
  const sandbox = gate.run('sandbox', async () => void order.push('sandbox'));
  const container = gate.run('container', async () => void order.push('container'));
  assert.equal(permits.waiting, 2);
  first.finish();
  await Promise.all([running, sandbox, container]);
  assert.deepEqual(order, ['container', 'sandbox']);
  assert.deepEqual([permits.inFlight, permits.waiting], [0, 0]);
});

test('a creation that fails gives its permit back and the next one goes', async () => {
  const permits = CreationPermits.create(1, 1);
  const gate = new SharedCreationGate(permits, 0);
  const failing = heldCreation();
  const failed = gate.run('container', failing.run);
  await failing.started;
  const next = gate.run('container', async () => 'next');
  failing.finish(new Error('runc failed'));
  await assert.rejects(failed, /runc failed/);
  assert.equal(await next, 'next');
  assert.equal(permits.inFlight, 0);
});

test('a creation stuck in the runtime gives its permit back after a while, once', async () => {
  const permits = CreationPermits.create(1, 1);
  const gate = new SharedCreationGate(permits, 0, 50);
  // The gate's own timers do not keep a process alive (a real stuck call's gRPC stream does): this one stands for it.
  const keepAlive = setInterval(() => undefined, 1_000);
  const stuck = heldCreation();
  const stuckRun = gate.run('sandbox', stuck.run);
  await stuck.started;
  assert.equal(await gate.run('sandbox', async () => 'went past the stuck one'), 'went past the stuck one');
  stuck.finish();
  await stuckRun;
  assert.equal(permits.inFlight, 0, 'its late end released nothing twice');
  assert.equal(permits.takeWindow().byKind.sandbox.count, 2, 'both latencies counted once');
  clearInterval(keepAlive);
});
