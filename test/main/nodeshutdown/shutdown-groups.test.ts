// Which pods a node shutdown stops when, and with how long: the settings turned
// into grace periods by priority (upstream's migrateConfig and NewManager), the
// pods grouped by priority (upstream's groupByPriority) and each pod's own grace
// period within its group, table-driven as upstream's tests are.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  groupByPriority,
  periodRequestedSeconds,
  periodsFromGracePeriods,
  podGracePeriodSeconds,
  shutdownPeriodsByPriority,
} from '../../../src/main/nodeshutdown/shutdown-groups.js';
import type { NodeShutdownOptions } from '../../../src/main/options/kubelet-options.js';
import type { Pod } from '../../../src/shared/types.js';

const CRITICAL = 2_000_000_000;
const NODE_CRITICAL = 2_000_001_000;

function pod(name: string, priority?: number, terminationGracePeriodSeconds?: number): Pod {
  return { metadata: { name, namespace: 'default', uid: `uid-${name}` }, spec: { priority, terminationGracePeriodSeconds, containers: [] } };
}

function settings(overrides: Partial<NodeShutdownOptions>): NodeShutdownOptions {
  return { enabled: true, byPodPriorityEnabled: true, gracePeriodMs: 0, criticalPodsGracePeriodMs: 0, byPodPriority: [], logindConfDir: '/x', ...overrides };
}

test('shutdownGracePeriod and shutdownGracePeriodCriticalPods become two groups, as upstream migrateConfig', () => {
  const cases = [
    { name: 'off', gracePeriodMs: 0, criticalMs: 0, want: [] },
    { name: '10s, 4s for critical pods', gracePeriodMs: 10_000, criticalMs: 4_000, want: [{ priority: 0, shutdownGracePeriodSeconds: 6 }, { priority: CRITICAL, shutdownGracePeriodSeconds: 4 }] },
    { name: 'no share for critical pods', gracePeriodMs: 30_000, criticalMs: 0, want: [{ priority: 0, shutdownGracePeriodSeconds: 30 }, { priority: CRITICAL, shutdownGracePeriodSeconds: 0 }] },
    { name: 'all of it for critical pods', gracePeriodMs: 10_000, criticalMs: 10_000, want: [{ priority: 0, shutdownGracePeriodSeconds: 0 }, { priority: CRITICAL, shutdownGracePeriodSeconds: 10 }] },
    { name: 'critical share larger than the whole', gracePeriodMs: 5_000, criticalMs: 10_000, want: [] },
    { name: 'only a critical share', gracePeriodMs: 0, criticalMs: 10_000, want: [] },
  ];
  for (const { name, gracePeriodMs, criticalMs, want } of cases) {
    assert.deepEqual(periodsFromGracePeriods(gracePeriodMs, criticalMs), want, name);
  }
});

test('shutdownGracePeriodByPodPriority replaces both periods when its gate is on, sorted by priority; the main gate turns everything off', () => {
  const byPodPriority = [
    { priority: 100_000, shutdownGracePeriodSeconds: 20 },
    { priority: 0, shutdownGracePeriodSeconds: 60 },
    { priority: CRITICAL, shutdownGracePeriodSeconds: 10 },
  ];
  const sorted = [byPodPriority[1], byPodPriority[0], byPodPriority[2]];
  const cases: Array<{ name: string; options: NodeShutdownOptions; want: unknown[] }> = [
    { name: 'by priority', options: settings({ byPodPriority }), want: sorted },
    { name: 'plain periods', options: settings({ gracePeriodMs: 10_000, criticalPodsGracePeriodMs: 4_000 }), want: periodsFromGracePeriods(10_000, 4_000) },
    { name: 'priority gate off: the plain periods', options: settings({ byPodPriorityEnabled: false, byPodPriority, gracePeriodMs: 10_000 }), want: periodsFromGracePeriods(10_000, 0) },
    { name: 'GracefulNodeShutdown off', options: settings({ enabled: false, gracePeriodMs: 10_000, criticalPodsGracePeriodMs: 4_000 }), want: [] },
    { name: 'nothing set', options: settings({}), want: [] },
  ];
  for (const { name, options, want } of cases) assert.deepEqual(shutdownPeriodsByPriority(options), want, name);
  assert.equal(periodRequestedSeconds(sorted), 90, 'logind must allow the sum of every group');
});

test('pods join the group of the highest priority not above theirs, as upstream groupByPriority', () => {
  const periods = [
    { priority: 1, shutdownGracePeriodSeconds: 10 },
    { priority: 2, shutdownGracePeriodSeconds: 20 },
    { priority: 3, shutdownGracePeriodSeconds: 30 },
    { priority: 4, shutdownGracePeriodSeconds: 40 },
  ];
  const cases = [
    { name: 'below the lowest group', priority: 0, group: 1 },
    { name: 'no priority counts as 0', priority: undefined, group: 1 },
    { name: 'negative', priority: -5, group: 1 },
    { name: 'on a boundary', priority: 2, group: 2 },
    { name: 'highest boundary', priority: 4, group: 4 },
    { name: 'above the highest group', priority: 1_000, group: 4 },
  ];
  for (const { name, priority, group } of cases) {
    const groups = groupByPriority(periods, [pod('p', priority)]);
    assert.deepEqual(groups.map((g) => g.pods.length), periods.map((period) => (period.priority === group ? 1 : 0)), name);
  }
  const between = groupByPriority([{ priority: 0, shutdownGracePeriodSeconds: 6 }, { priority: 1_000, shutdownGracePeriodSeconds: 3 }, { priority: CRITICAL, shutdownGracePeriodSeconds: 4 }], [pod('between', 999_999)]);
  assert.deepEqual(between.map((g) => g.pods.map((p) => p.metadata?.name)), [[], ['between'], []], 'between two groups: the lower one');
});

test('with the two plain periods, system-critical and node-critical pods go last and everything else first', () => {
  const periods = periodsFromGracePeriods(10_000, 4_000);
  const pods = [pod('web'), pod('batch', 1_000_000), pod('kube-proxy', CRITICAL), pod('etcd', NODE_CRITICAL), pod('low', -10)];
  const groups = groupByPriority(periods, pods);
  assert.deepEqual(
    groups.map((g) => ({ seconds: g.shutdownGracePeriodSeconds, pods: g.pods.map((p) => p.metadata?.name) })),
    [
      { seconds: 6, pods: ['web', 'batch', 'low'] },
      { seconds: 4, pods: ['kube-proxy', 'etcd'] },
    ],
  );
  assert.deepEqual(groupByPriority([], pods), [], 'no periods, no groups');
});

test("a pod's own terminationGracePeriodSeconds wins when it is shorter than its group's", () => {
  const group = { priority: 0, shutdownGracePeriodSeconds: 6 };
  const cases = [
    { name: 'unset: the group period', own: undefined, want: 6 },
    { name: 'shorter', own: 2, want: 2 },
    { name: 'zero', own: 0, want: 0 },
    { name: 'equal', own: 6, want: 6 },
    { name: 'longer: capped', own: 30, want: 6 },
  ];
  for (const { name, own, want } of cases) assert.equal(podGracePeriodSeconds(pod('p', 0, own), group), want, name);
});
