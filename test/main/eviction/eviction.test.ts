// The eviction manager against modelled figures: thresholds, grace periods,
// minimum reclaim, the pressure transition period, the eviction order and
// admission under pressure, as upstream's eviction manager decides them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import pino from 'pino';
import { EvictionManager } from '../../../src/main/eviction/eviction-manager.js';
import { PressureState } from '../../../src/main/eviction/pressure-state.js';
import { rankForEviction } from '../../../src/main/eviction/pod-ranking.js';
import { parseThresholds, type Threshold } from '../../../src/main/eviction/thresholds.js';
import type { PodStats, Summary } from '../../../src/main/stats/summary-types.js';
import type { Pod } from '../../../src/shared/types.js';

const Mi = 1024 * 1024;
const logger = pino({ level: 'silent' });
const NO_EXTRA = { evictionSoft: {}, evictionSoftGracePeriodMs: {}, evictionMinimumReclaim: {} };

function pod(name: string, resources: { requests?: Record<string, string>; limits?: Record<string, string> } = {}, priority = 0): Pod {
  return {
    metadata: { name, namespace: 'default', uid: `uid-${name}` },
    spec: { priority, containers: [{ name: 'main', image: 'busybox', resources }] },
  };
}

function podStats(name: string, workingSetMi: number): PodStats {
  const memory = { time: '', workingSetBytes: workingSetMi * Mi };
  return { podRef: { name, namespace: 'default', uid: `uid-${name}` }, startTime: null, memory, containers: [{ name: 'main', startTime: null, memory }] };
}

function summary(availableMi: number, pods: PodStats[] = []): Summary {
  return { node: { nodeName: 'n', startTime: '', memory: { time: '', availableBytes: availableMi * Mi, workingSetBytes: (1024 - availableMi) * Mi } }, pods };
}

test('thresholds: hard and soft, quantities and percentages, minimum reclaim; 0% turns a signal off', () => {
  const thresholds = parseThresholds({
    evictionHard: { 'memory.available': '100Mi', 'nodefs.available': '10%', 'imagefs.available': '0%' },
    evictionSoft: { 'memory.available': '300Mi' },
    evictionSoftGracePeriodMs: { 'memory.available': 90_000 },
    evictionMinimumReclaim: { 'memory.available': '50Mi' },
  });
  assert.deepEqual(thresholds, [
    { signal: 'memory.available', value: { quantity: 100 * Mi }, gracePeriodMs: 0, hard: true, minReclaim: { quantity: 50 * Mi } },
    { signal: 'nodefs.available', value: { percentage: Math.fround(Math.fround(10) / 100) }, gracePeriodMs: 0, hard: true },
    { signal: 'memory.available', value: { quantity: 300 * Mi }, gracePeriodMs: 90_000, hard: false, minReclaim: { quantity: 50 * Mi } },
  ]);
});

test('pressure: a soft threshold acts after its grace period; minimum reclaim holds it; the condition outlasts it by the transition period', () => {
  const thresholds: Threshold[] = [{ signal: 'memory.available', value: { quantity: 200 * Mi }, gracePeriodMs: 30_000, hard: false, minReclaim: { quantity: 100 * Mi } }];
  const state = new PressureState(60_000);
  const at = (availableMi: number) => ({ 'memory.available': { available: availableMi * Mi, capacity: 1024 * Mi } });
  let pass = state.update(thresholds, at(150), 0);
  assert.deepEqual([...pass.conditions], ['MemoryPressure'], 'the condition shows at once');
  assert.equal(pass.actionable.length, 0, 'no action inside the grace period');
  pass = state.update(thresholds, at(150), 30_000);
  assert.equal(pass.actionable.length, 1, 'acted on once the grace period passed');
  pass = state.update(thresholds, at(250), 40_000);
  assert.equal(pass.actionable.length, 1, '250Mi is above 200Mi but not above 200Mi + the 100Mi minimum reclaim');
  pass = state.update(thresholds, at(350), 50_000);
  assert.equal(pass.actionable.length, 0);
  assert.deepEqual([...pass.conditions], ['MemoryPressure'], 'held for the transition period');
  assert.deepEqual([...state.update(thresholds, at(350), 100_001).conditions], [], 'gone once the transition period passed');
});

test('ranking for memory: pods above their requests first, then lower priority, then the largest excess', () => {
  const entries = [
    { pod: pod('within', { requests: { memory: '100Mi' } }), stats: podStats('within', 50) },
    { pod: pod('over-small', { requests: { memory: '100Mi' } }), stats: podStats('over-small', 120) },
    { pod: pod('over-big', { requests: { memory: '100Mi' } }), stats: podStats('over-big', 400) },
    { pod: pod('besteffort-important'), stats: podStats('besteffort-important', 10) },
    { pod: pod('unmeasured', { requests: { memory: '1Gi' } }) },
  ];
  entries[3]!.pod.spec!.priority = 1000;
  assert.deepEqual(rankForEviction(entries, 'memory.available').map((e) => e.pod.metadata!.name), ['unmeasured', 'over-big', 'over-small', 'besteffort-important', 'within']);
});

test('the manager evicts one pod per pass, the hungriest best-effort first, never a critical pod, with upstream\'s message; admission follows the pressure', async () => {
  const evicted: Array<{ name: string; grace: number; message: string }> = [];
  const hog = pod('hog');
  const modest = pod('modest', { requests: { memory: '64Mi' }, limits: { memory: '128Mi' } });
  const critical = { ...pod('critical'), spec: { ...pod('critical').spec!, priority: 2_000_001_000 } };
  let available = 50;
  const active = new Set([hog, modest, critical]);
  const manager = new EvictionManager({
    thresholds: parseThresholds({ evictionHard: { 'memory.available': '100Mi' }, ...NO_EXTRA }),
    transitionPeriodMs: 300_000,
    maxPodGracePeriodSeconds: 0,
    monitoringPeriodMs: 10_000,
    nodeSummary: async () => summary(available),
    summary: async () => summary(available, [podStats('hog', 300), podStats('modest', 32), podStats('critical', 900)]),
    activePods: () => [...active],
    evict: (victim, grace, message) => {
      evicted.push({ name: victim.metadata!.name!, grace, message });
      active.delete(victim);
    },
    logger,
  });
  assert.equal(manager.admit(pod('newcomer')), undefined, 'no pressure, no rejection');
  assert.equal((await manager.synchronize(0))?.metadata?.name, 'hog');
  assert.deepEqual(evicted[0], {
    name: 'hog',
    grace: 1,
    message: 'The node was low on resource: memory. Threshold quantity: 100Mi, available: 50Mi. Container main was using 300Mi, request is 0, has larger consumption of memory. ',
  });
  assert.deepEqual([...manager.conditions()], ['MemoryPressure']);
  assert.deepEqual(manager.admit(pod('newcomer')), { reason: 'Evicted', message: 'The node had condition: [MemoryPressure]. ' });
  assert.equal(manager.admit(pod('burstable', { requests: { memory: '10Mi' } })), undefined, 'only best-effort pods are refused under memory pressure');
  assert.equal((await manager.synchronize(10_000))?.metadata?.name, 'modest');
  assert.equal(await manager.synchronize(20_000), undefined, 'the critical pod is never evicted');
  available = 500;
  assert.equal(await manager.synchronize(30_000), undefined);
  assert.deepEqual([...manager.conditions()], ['MemoryPressure'], 'held for the transition period');
});
