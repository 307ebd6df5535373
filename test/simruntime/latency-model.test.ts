// Latency options: defaults, layering of file and flags, validation, scaling.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  DEFAULT_CALL_LATENCY_MS,
  LatencyModel,
  loadLatencyFile,
  resolveLatencyOptions,
} from '../../src/simruntime/latency-model.js';

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
});
