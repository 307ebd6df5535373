// The node-wide container GC's choice, table-driven as upstream's container GC
// tests are: which dead containers and sandboxes go for a given runtime listing,
// pod standing, policy and time.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import {
  planContainerGc,
  type ContainerGcPolicy,
  type GcContainer,
  type GcContainerState,
  type GcSandbox,
  type PodGcState,
} from '../../../src/shared/kuberuntime/container-gc-policy.js';

const NOW_MS = 1_000_000;
const DEFAULT_POLICY: ContainerGcPolicy = { minAgeMs: 0, maxPerPodContainer: 1, maxContainers: -1 };

/** A container of pod `pod`, name `name`, created `ageMs` before NOW_MS; its ID says all three. */
function dead(pod: string, name: string, ageMs: number, state: GcContainerState = 'exited', sandboxId = `${pod}-s1`): GcContainer {
  return { id: `${pod}/${name}@${ageMs}`, podUid: pod, name, sandboxId, state, createdAtMs: NOW_MS - ageMs };
}

function sandbox(pod: string, id: string, ageMs: number, ready = false): GcSandbox {
  return { id, podUid: pod, ready, createdAtMs: NOW_MS - ageMs };
}

interface Case {
  name: string;
  containers: GcContainer[];
  sandboxes?: GcSandbox[];
  policy?: Partial<ContainerGcPolicy>;
  states?: Record<string, PodGcState>;
  evictNonDeletedPods?: boolean;
  removed: string[];
  removedSandboxes?: string[];
}

const CASES: Case[] = [
  {
    name: 'MaxPerPodContainer 1: the newest dead instance of each container stays',
    containers: [dead('a', 'app', 10), dead('a', 'app', 20), dead('a', 'app', 30), dead('a', 'side', 40)],
    removed: ['a/app@20', 'a/app@30'],
  },
  {
    name: 'a running container is never evictable, nor counted',
    containers: [dead('a', 'app', 5, 'running'), dead('a', 'app', 10), dead('a', 'app', 20)],
    removed: ['a/app@20'],
  },
  {
    name: 'MaxPerPodContainer -1 keeps every instance; 0 keeps none',
    containers: [dead('a', 'app', 10), dead('a', 'app', 20)],
    policy: { maxPerPodContainer: -1 },
    removed: [],
  },
  {
    name: 'MaxPerPodContainer 0 removes every dead instance of a live pod',
    containers: [dead('a', 'app', 10), dead('a', 'app', 20)],
    policy: { maxPerPodContainer: 0 },
    removed: ['a/app@10', 'a/app@20'],
  },
  {
    name: 'MinAge: a younger container is neither removed nor counted among those kept',
    containers: [dead('a', 'app', 10), dead('a', 'app', 50), dead('a', 'app', 200), dead('a', 'app', 300)],
    policy: { minAgeMs: 100 },
    removed: ['a/app@300'],
  },
  {
    name: 'MaxContainers: each unit keeps an equal share (4 / 2 units = 2)',
    containers: [dead('a', 'app', 10), dead('a', 'app', 20), dead('a', 'app', 30), dead('b', 'app', 15), dead('b', 'app', 25), dead('b', 'app', 35)],
    policy: { maxPerPodContainer: -1, maxContainers: 4 },
    removed: ['a/app@30', 'b/app@35'],
  },
  {
    name: 'MaxContainers: the share is a floor, so the total may end below the limit (5 / 3 units = 1)',
    containers: [dead('a', 'app', 10), dead('a', 'app', 20), dead('b', 'app', 11), dead('b', 'app', 21), dead('c', 'app', 12), dead('c', 'app', 22)],
    policy: { maxPerPodContainer: -1, maxContainers: 5 },
    removed: ['a/app@20', 'b/app@21', 'c/app@22'],
  },
  {
    name: 'MaxContainers below the unit count: one each, then the oldest across all units go',
    containers: [dead('a', 'app', 10), dead('a', 'app', 40), dead('b', 'app', 30), dead('c', 'app', 20)],
    policy: { maxPerPodContainer: 5, maxContainers: 2 },
    removed: ['a/app@40', 'b/app@30'],
  },
  {
    name: 'MaxContainers 0 removes every dead container; -1 is no limit',
    containers: [dead('a', 'app', 10), dead('b', 'app', 20)],
    policy: { maxContainers: 0 },
    removed: ['a/app@10', 'b/app@20'],
  },
  {
    name: 'MaxContainers under the total only after MaxPerPodContainer: nothing more goes when that already fits',
    containers: [dead('a', 'app', 10), dead('a', 'app', 20), dead('b', 'app', 30)],
    policy: { maxContainers: 2 },
    removed: ['a/app@20'],
  },
  {
    name: 'a pod whose content may go loses every dead container, and does not count toward MaxContainers',
    containers: [dead('gone', 'app', 1), dead('gone', 'app', 2), dead('a', 'app', 10), dead('b', 'app', 20)],
    policy: { maxContainers: 2 },
    states: { gone: 'gone' },
    removed: ['gone/app@1', 'gone/app@2'],
  },
  {
    name: 'a terminated pod still wanted keeps its dead containers, unless all unused ones must go (disk pressure)',
    containers: [dead('done', 'app', 10)],
    states: { done: 'terminated' },
    removed: [],
  },
  {
    name: 'evictNonDeletedPods: a terminated pod loses them all',
    containers: [dead('done', 'app', 10), dead('a', 'app', 20)],
    states: { done: 'terminated' },
    evictNonDeletedPods: true,
    removed: ['done/app@10'],
  },
  {
    name: "a live pod's newest created container may be starting: it stays; an older created one a newer instance replaced goes",
    containers: [dead('a', 'app', 1, 'created'), dead('a', 'app', 10), dead('a', 'side', 5, 'exited'), dead('a', 'side', 8, 'created')],
    removed: ['a/side@8'],
  },
  {
    name: 'a created container of a pod that is gone goes like any other',
    containers: [dead('gone', 'app', 1, 'created')],
    states: { gone: 'gone' },
    removed: ['gone/app@1'],
  },
  {
    name: 'an unknown container counts as dead',
    containers: [dead('a', 'app', 10, 'unknown'), dead('a', 'app', 20, 'unknown')],
    removed: ['a/app@20'],
  },
  {
    name: 'sandboxes: a live pod keeps its newest, and an older one while it holds a container; ready ones always stay',
    containers: [dead('a', 'app', 10, 'exited', 'a-s2')],
    sandboxes: [sandbox('a', 'a-s1', 100), sandbox('a', 'a-s2', 50), sandbox('a', 'a-s3', 20), sandbox('a', 'a-s4', 5), sandbox('b', 'b-old', 90, true), sandbox('b', 'b-new', 9)],
    removed: [],
    removedSandboxes: ['a-s3', 'a-s1'],
  },
  {
    name: 'sandboxes: a gone pod loses every one that is not ready, once the containers this pass removes are gone',
    containers: [dead('gone', 'app', 10, 'exited', 'g-s1'), dead('gone', 'app', 20, 'running', 'g-s2')],
    sandboxes: [sandbox('gone', 'g-s1', 100), sandbox('gone', 'g-s2', 50), sandbox('gone', 'g-s3', 10, true)],
    states: { gone: 'gone' },
    removed: ['gone/app@10'],
    removedSandboxes: ['g-s1'],
  },
];

for (const testCase of CASES) {
  test(testCase.name, () => {
    const plan = planContainerGc({
      containers: testCase.containers,
      sandboxes: testCase.sandboxes ?? [],
      policy: { ...DEFAULT_POLICY, ...testCase.policy },
      podState: (uid) => testCase.states?.[uid] ?? 'live',
      evictNonDeletedPods: testCase.evictNonDeletedPods,
      nowMs: NOW_MS,
    });
    assert.deepEqual(plan.containers.map((removal) => removal.container.id).sort(), [...testCase.removed].sort());
    assert.deepEqual(plan.sandboxIds.sort(), [...(testCase.removedSandboxes ?? [])].sort());
  });
}

test('the reasons name the rule that removed each container', () => {
  const plan = planContainerGc({
    containers: [dead('gone', 'app', 1), dead('a', 'app', 10), dead('a', 'app', 20), dead('b', 'app', 30), dead('b', 'app', 40), dead('c', 'app', 50)],
    sandboxes: [],
    policy: { minAgeMs: 0, maxPerPodContainer: 2, maxContainers: 2 },
    podState: (uid) => (uid === 'gone' ? 'gone' : 'live'),
    nowMs: NOW_MS,
  });
  assert.deepEqual(
    Object.fromEntries(plan.containers.map((removal) => [removal.container.id, removal.reason])),
    {
      'gone/app@1': 'pod content removable',
      'a/app@20': 'MaxContainers share',
      'b/app@40': 'MaxContainers share',
      'c/app@50': 'MaxContainers oldest',
    },
  );
});

test('property: never a running or too young container; the live total fits MaxContainers; each live unit keeps its newest while the limit allows', () => {
  const arbitraryContainer = fc.record({
    pod: fc.constantFrom('p1', 'p2', 'p3', 'gone'),
    name: fc.constantFrom('app', 'side'),
    ageMs: fc.integer({ min: 0, max: 1_000 }),
    state: fc.constantFrom<GcContainerState>('exited', 'running', 'created', 'unknown'),
  });
  fc.assert(
    fc.property(
      fc.uniqueArray(arbitraryContainer, { selector: (c) => `${c.pod}/${c.name}@${c.ageMs}`, maxLength: 30 }),
      fc.integer({ min: -1, max: 4 }),
      fc.integer({ min: -1, max: 12 }),
      fc.integer({ min: 0, max: 500 }),
      (listed, maxPerPodContainer, maxContainers, minAgeMs) => {
        const containers = listed.map((c) => dead(c.pod, c.name, c.ageMs, c.state));
        const policy = { minAgeMs, maxPerPodContainer, maxContainers };
        const plan = planContainerGc({ containers, sandboxes: [], policy, podState: (uid) => (uid === 'gone' ? 'gone' : 'live'), nowMs: NOW_MS });
        const removed = new Set(plan.containers.map((removal) => removal.container.id));
        assert.equal(removed.size, plan.containers.length, 'each container at most once');
        for (const container of containers) {
          if (!removed.has(container.id)) continue;
          assert.notEqual(container.state, 'running', `${container.id} runs`);
          assert.ok(container.createdAtMs <= NOW_MS - minAgeMs, `${container.id} is younger than MinAge`);
        }
        const evictable = (c: GcContainer) => c.state !== 'running' && c.createdAtMs <= NOW_MS - minAgeMs && c.podUid !== 'gone';
        const units = new Set(containers.filter(evictable).map((c) => `${c.podUid}/${c.name}`));
        const left = containers.filter((c) => evictable(c) && !removed.has(c.id));
        // A live unit's newest created instance is not evictable at all, so it may exceed the limit by those.
        const startingCreated = left.filter((c) => c.state === 'created').length;
        if (maxContainers >= 0) assert.ok(left.length - startingCreated <= maxContainers, `${left.length} left over ${maxContainers}`);
        if (maxPerPodContainer !== 0 && (maxContainers < 0 || maxContainers >= units.size)) {
          for (const unit of units) {
            const newest = containers.filter((c) => evictable(c) && `${c.podUid}/${c.name}` === unit).sort((a, b) => b.createdAtMs - a.createdAtMs)[0]!;
            assert.ok(!removed.has(newest.id), `${unit} lost its newest dead instance ${newest.id}`);
          }
        }
      },
    ),
  );
});
