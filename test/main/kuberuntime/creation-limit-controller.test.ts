import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import { CreationLimitController, MIN_WINDOW_CREATIONS } from '../../../src/main/kuberuntime/creation-limit-controller.js';
import { MIN_CREATION_LIMIT } from '../../../src/shared/runtime-creation/adaptive-limit.js';

const logger = pino({ level: 'silent' });

/** `count` sandbox creations of `seconds` each on shard 0, one of them having waited for its permit. */
function finish(controller: CreationLimitController, count: number, seconds: number): void {
  const permits = controller.permits!;
  permits.noteWaiting('sandbox', 0, true);
  permits.noteWaiting('sandbox', 0, false);
  for (let i = 0; i < count; i++) {
    assert.ok(permits.tryAcquire('sandbox', 0));
    permits.release('sandbox', 0, seconds);
  }
}

test('off: no permits at all, nothing for the shards or the metrics', () => {
  const controller = new CreationLimitController({ setting: { mode: 'off' }, shards: 2, logger });
  assert.equal(controller.shared, undefined);
  assert.equal(controller.figures(), undefined);
});

test('a fixed limit is what the shards get and it never moves', () => {
  const controller = new CreationLimitController({ setting: { mode: 'fixed', limit: 7 }, shards: 2, logger });
  assert.equal(controller.shared?.shards, 2);
  finish(controller, 8, 10);
  controller.tick();
  assert.deepEqual(controller.figures(), { limit: 7, inFlight: 0 });
});

test('adaptive: starts at the minimum, moves only on a window of enough creations, grows while latency holds and is cut when it climbs', () => {
  const controller = new CreationLimitController({ setting: { mode: 'adaptive' }, shards: 1, logger });
  assert.equal(controller.figures()?.limit, MIN_CREATION_LIMIT);
  finish(controller, 1, 0.09);
  controller.tick();
  assert.equal(controller.figures()?.limit, MIN_CREATION_LIMIT, 'one creation says nothing yet');
  finish(controller, 1, 0.09);
  controller.tick();
  assert.equal(controller.figures()?.limit, 4, 'a round of the limit’s size (2) completes the window: slow start doubles');
  finish(controller, MIN_WINDOW_CREATIONS - 1, 0.1);
  controller.tick();
  assert.equal(controller.figures()?.limit, 4, `from ${MIN_WINDOW_CREATIONS} up a window needs ${MIN_WINDOW_CREATIONS} creations`);
  finish(controller, 1, 0.1);
  controller.tick();
  assert.equal(controller.figures()?.limit, 8);
  finish(controller, MIN_WINDOW_CREATIONS, 0.9);
  controller.tick();
  assert.equal(controller.figures()?.limit, 4, '10× the baseline: halved');
});

test('a lost shard’s permits come back through the controller', () => {
  const controller = new CreationLimitController({ setting: { mode: 'fixed', limit: 4 }, shards: 2, logger });
  controller.permits!.tryAcquire('container', 1);
  controller.permits!.tryAcquire('container', 1);
  controller.reclaimShard(1);
  assert.equal(controller.figures()?.inFlight, 0);
});
