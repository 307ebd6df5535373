// Latency options: defaults, layering of profile, file and flags, validation,
// scaling, and the runtime operation slots.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, mock } from 'node:test';
import {
  DEFAULT_CALL_LATENCY_MS,
  LatencyModel,
  loadLatencyFile,
  mergeLatencyOverrides,
  resolveLatencyOptions,
} from '../../src/simruntime/latency-model.js';
import { ARM_RUNTIME_OPERATION_SLOTS, SIM_PROFILES, simProfile } from '../../src/simruntime/profiles.js';

/** Lets promise callbacks run after mock timers fired. */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await Promise.resolve();
}

describe('latency model', () => {
  it('defaults to the latencies measured on containerd', () => {
    const options = resolveLatencyOptions();
    assert.equal(options.callLatencyMs.RunPodSandbox, 90);
    assert.equal(options.callLatencyMs.CreateContainer, 8);
    assert.equal(options.callLatencyMs.StartContainer, 55);
    assert.equal(options.callLatencyMs.StopPodSandbox, 90);
    assert.equal(options.scale, 1);
  });

  it('applies layers in order and merges per-call overrides', () => {
    const options = resolveLatencyOptions({ scale: 2, callLatencyMs: { StartContainer: 10 } }, { scale: 0.5, jitter: 0 });
    assert.equal(options.scale, 0.5);
    assert.equal(options.jitter, 0);
    assert.equal(options.callLatencyMs.StartContainer, 10);
    assert.equal(options.callLatencyMs.RunPodSandbox, DEFAULT_CALL_LATENCY_MS.RunPodSandbox);
  });

  it('rejects nonsense values', () => {
    assert.throws(() => resolveLatencyOptions({ scale: -1 }), /scale/);
    assert.throws(() => resolveLatencyOptions({ jitter: 1 }), /jitter/);
    assert.throws(() => resolveLatencyOptions({ callLatencyMs: { Version: Number.NaN } }), /Version/);
  });

  it('scales delays, adds per-item list cost, and is instant at scale 0', () => {
    const model = new LatencyModel(resolveLatencyOptions({ jitter: 0, scale: 2, listItemLatencyMs: 0.5 }));
    assert.equal(model.delayMs('RunPodSandbox'), 180);
    assert.equal(model.delayMs('ListContainers', 10), (1 + 5) * 2);
    const instant = new LatencyModel(resolveLatencyOptions({ scale: 0 }));
    assert.equal(instant.delayMs('RunPodSandbox'), 0);
    model.close();
    instant.close();
  });

  it('keeps jittered delays within the band', () => {
    const model = new LatencyModel(resolveLatencyOptions({ jitter: 0.2 }));
    for (let i = 0; i < 200; i++) {
      const ms = model.delayMs('StartContainer');
      assert.ok(ms >= 55 * 0.8 && ms <= 55 * 1.2, `${ms} within ±20 %`);
    }
    model.close();
  });

  it('loads a JSON file and names unknown RPCs', () => {
    const dir = mkdtempSync(join(tmpdir(), 'shardlet-latency-'));
    try {
      const good = join(dir, 'good.json');
      writeFileSync(good, JSON.stringify({ scale: 0.1, callLatencyMs: { PullImage: 5 } }));
      assert.deepEqual(loadLatencyFile(good), { scale: 0.1, callLatencyMs: { PullImage: 5 } });
      const bad = join(dir, 'bad.json');
      writeFileSync(bad, JSON.stringify({ callLatencyMs: { RunPod: 5 } }));
      assert.throws(() => loadLatencyFile(bad), /unknown RPC name\(s\) in callLatencyMs: RunPod/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('merges layers of overrides, later ones winning, undefined leaving a field alone', () => {
    const merged = mergeLatencyOverrides(
      { scale: 2, jitter: 0.1, callLatencyMs: { RunPodSandbox: 100 } },
      undefined,
      { scale: undefined, jitter: 0, callLatencyMs: { StartContainer: 5 } },
    );
    assert.deepEqual(merged, { scale: 2, jitter: 0, callLatencyMs: { RunPodSandbox: 100, StartContainer: 5 } });
  });

  it('rejects a fractional or negative number of runtime operation slots', () => {
    assert.throws(() => resolveLatencyOptions({ runtimeOperationSlots: 1.5 }), /runtimeOperationSlots/);
    assert.throws(() => resolveLatencyOptions({ runtimeOperationSlots: -1 }), /runtimeOperationSlots/);
  });

  it('lets a third runtime operation wait for a free slot when there are two, then hands it the first slot freed', async () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    const model = new LatencyModel(resolveLatencyOptions({ jitter: 0, runtimeOperationSlots: 2, callLatencyMs: { RunPodSandbox: 100, StartContainer: 50 } }));
    try {
      const finished: string[] = [];
      const first = model.wait('RunPodSandbox').then(() => finished.push('first'));
      const second = model.wait('StartContainer').then(() => finished.push('second'));
      const third = model.wait('RunPodSandbox').then(() => finished.push('third'));
      assert.deepEqual(model.runtimeOperations, { inProgress: 2, waiting: 1 });
      await settle();

      mock.timers.tick(50);
      await settle();
      assert.deepEqual(finished, ['second']);
      assert.deepEqual(model.runtimeOperations, { inProgress: 2, waiting: 0 }, 'the third took the freed slot');

      mock.timers.tick(50);
      await settle();
      assert.deepEqual(finished, ['second', 'first'], 'the third still runs its own 100 ms');
      mock.timers.tick(50);
      await Promise.all([first, second, third]);
      assert.deepEqual(finished, ['second', 'first', 'third']);
      assert.deepEqual(model.runtimeOperations, { inProgress: 0, waiting: 0 });
    } finally {
      model.close();
      mock.timers.reset();
    }
  });

  it('never makes lookups and lists wait for a runtime operation slot', async () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    const model = new LatencyModel(resolveLatencyOptions({ jitter: 0, runtimeOperationSlots: 1 }));
    try {
      void model.wait('RunPodSandbox');
      const lookups = Promise.all([model.wait('ContainerStatus'), model.wait('ListContainers', 10), model.wait('PullImage')]);
      assert.deepEqual(model.runtimeOperations, { inProgress: 1, waiting: 0 });
      await settle();
      mock.timers.tick(DEFAULT_CALL_LATENCY_MS.PullImage);
      await lookups;
      assert.equal(model.runtimeOperations.inProgress, 1, 'the sandbox is still being made');
      mock.timers.tick(DEFAULT_CALL_LATENCY_MS.RunPodSandbox);
    } finally {
      model.close();
      mock.timers.reset();
    }
  });

  it('has an arm profile with slots, a per-pull cap and slower calls, and an instant one', () => {
    const arm = resolveLatencyOptions(simProfile('arm').latency);
    assert.equal(arm.runtimeOperationSlots, ARM_RUNTIME_OPERATION_SLOTS);
    assert.ok(arm.pullBytesPerSecond > 0 && arm.pullBytesPerSecond < arm.registryBandwidthBytesPerSecond);
    assert.ok(arm.callLatencyMs.RunPodSandbox > DEFAULT_CALL_LATENCY_MS.RunPodSandbox);
    assert.equal(arm.callLatencyMs.ListContainers, DEFAULT_CALL_LATENCY_MS.ListContainers);
    const instant = new LatencyModel(resolveLatencyOptions(SIM_PROFILES.instant.latency));
    assert.equal(instant.delayMs('RunPodSandbox'), 0);
    instant.close();
    assert.throws(() => simProfile('x86'), /unknown sim runtime profile "x86" \(known: arm, instant\)/);
  });
});
