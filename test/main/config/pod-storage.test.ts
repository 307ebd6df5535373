import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import { PodStorage } from '../../../src/main/config/pod-storage.js';
import { ErrorCodes } from '../../../src/shared/errors.js';
import { CONFIG_SEEN_ANNOTATION, CONFIG_SOURCE_ANNOTATION } from '../../../src/shared/labels.js';
import type { Pod, PodOperation, PodUpdate } from '../../../src/shared/types.js';

const SEEN_AT = '2024-01-24T18:58:51.919Z';

function makePod(name: string, options: { uid?: string; namespace?: string; image?: string } = {}): Pod {
  return {
    metadata: { name, namespace: options.namespace ?? 'default', uid: options.uid ?? `uid-${name}` },
    spec: { containers: [{ name: 'c', image: options.image ?? 'busybox:1.36' }] },
  };
}

function harness() {
  const updates: PodUpdate[] = [];
  const logs: Array<Record<string, unknown>> = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void logs.push(JSON.parse(line) as Record<string, unknown>) });
  const storage = new PodStorage((update) => updates.push(update), logger, () => new Date(SEEN_AT));
  /** Merges and returns what the merge delivered, as [op, names]. */
  const merge = (source: string, op: PodOperation, pods: Pod[]) => {
    updates.length = 0;
    storage.merge(source, { op, source, pods });
    return updates.map((update) => [update.op, update.pods.map((pod) => pod.metadata?.name)]);
  };
  return { storage, updates, logs, merge };
}

/** Builds a changed copy of a pod. */
function changed(pod: Pod, change: (copy: Pod) => void): Pod {
  const copy = structuredClone(pod);
  change(copy);
  return copy;
}

test('ADD of a new pod delivers ADD with the source and first-seen annotations', () => {
  const { merge, updates } = harness();
  assert.deepEqual(merge('api', 'ADD', [makePod('a')]), [['ADD', ['a']]]);
  const annotations = updates[0]!.pods[0]!.metadata!.annotations!;
  assert.equal(annotations[CONFIG_SOURCE_ANNOTATION], 'api');
  assert.equal(annotations[CONFIG_SEEN_ANNOTATION], SEEN_AT);
  assert.equal(updates[0]!.source, 'api');
});

test('changes to a known pod: UPDATE, RECONCILE, DELETE or nothing, as checkAndUpdatePod decides', () => {
  const base = makePod('a');
  const cases: Array<{ name: string; change: (pod: Pod) => void; want: Array<[string, string[]]> }> = [
    { name: 'no change', change: () => undefined, want: [] },
    { name: 'spec change', change: (pod) => void (pod.spec!.containers[0]!.image = 'busybox:1.37'), want: [['UPDATE', ['a']]] },
    { name: 'labels change', change: (pod) => void (pod.metadata!.labels = { tier: 'web' }), want: [['UPDATE', ['a']]] },
    { name: 'annotation change', change: (pod) => void (pod.metadata!.annotations = { note: 'x' }), want: [['UPDATE', ['a']]] },
    {
      name: 'only kubelet-local annotations change',
      change: (pod) => void (pod.metadata!.annotations = { [CONFIG_SEEN_ANNOTATION]: 'later', [CONFIG_SOURCE_ANNOTATION]: 'file' }),
      want: [],
    },
    { name: 'status-only change', change: (pod) => void (pod.status = { phase: 'Running' }), want: [['RECONCILE', ['a']]] },
    {
      name: 'graceful deletion',
      change: (pod) => {
        pod.metadata!.deletionTimestamp = '2024-01-24T19:00:00Z' as unknown as Date;
        pod.metadata!.deletionGracePeriodSeconds = 30;
      },
      want: [['DELETE', ['a']]],
    },
    {
      name: 'resourceVersion only (not semantic, no status change)',
      change: (pod) => void (pod.metadata!.resourceVersion = '42'),
      want: [],
    },
  ];
  for (const op of ['UPDATE', 'ADD', 'SET'] as const) {
    for (const { name, change, want } of cases) {
      const { merge } = harness();
      merge('api', op === 'SET' ? 'SET' : 'ADD', [base]);
      assert.deepEqual(merge('api', op, [changed(base, change)]), want, `${op}: ${name}`);
    }
  }
});

test('an UPDATE carries the new spec and keeps the first-seen time', () => {
  const { merge, updates, storage } = harness();
  merge('api', 'ADD', [makePod('a')]);
  merge('api', 'UPDATE', [makePod('a', { image: 'nginx:1.25' })]);
  const updated = updates[0]!.pods[0]!;
  assert.equal(updated.spec!.containers[0]!.image, 'nginx:1.25');
  assert.equal(updated.metadata!.annotations![CONFIG_SEEN_ANNOTATION], SEEN_AT);
  assert.equal(storage.mergedState()[0]!.spec!.containers[0]!.image, 'nginx:1.25');
});

test('an UPDATE carries the new metadata.generation, so the next status reports it', () => {
  const { merge, updates } = harness();
  const first = makePod('a');
  first.metadata!.generation = 1;
  merge('api', 'ADD', [first]);
  const resized = changed(first, (pod) => {
    pod.spec!.containers[0]!.image = 'busybox:1.37';
    pod.metadata!.generation = 2;
  });
  assert.deepEqual(merge('api', 'UPDATE', [resized]), [['UPDATE', ['a']]]);
  assert.equal(updates.at(-1)!.pods[0]!.metadata!.generation, 2);
});

test('REMOVE of a known pod delivers REMOVE; of an unknown pod, nothing', () => {
  const { merge, storage } = harness();
  merge('api', 'ADD', [makePod('a'), makePod('b')]);
  assert.deepEqual(merge('api', 'REMOVE', [makePod('a')]), [['REMOVE', ['a']]]);
  assert.deepEqual(merge('api', 'REMOVE', [makePod('a')]), []);
  assert.deepEqual(merge('api', 'REMOVE', [makePod('zzz')]), []);
  assert.deepEqual(storage.mergedState().map((pod) => pod.metadata?.name), ['b']);
});

test('SET replaces the source\'s pods: REMOVE, ADD, UPDATE, DELETE, RECONCILE in upstream order', () => {
  const { merge } = harness();
  const keep = makePod('keep');
  const update = makePod('update');
  const remove = makePod('remove');
  const reconcile = makePod('reconcile');
  const del = makePod('delete');
  merge('file', 'SET', [keep, update, remove, reconcile, del]);
  const next = [
    keep,
    changed(update, (pod) => void (pod.spec!.containers[0]!.image = 'new')),
    changed(reconcile, (pod) => void (pod.status = { phase: 'Running' })),
    changed(del, (pod) => void (pod.metadata!.deletionTimestamp = '2024-01-24T19:00:00Z' as unknown as Date)),
    makePod('add'),
  ];
  assert.deepEqual(merge('file', 'SET', next), [
    ['REMOVE', ['remove']],
    ['ADD', ['add']],
    ['UPDATE', ['update']],
    ['DELETE', ['delete']],
    ['RECONCILE', ['reconcile']],
  ]);
});

test('the first SET marks the source ready; an empty one still delivers an empty ADD', () => {
  const { merge, storage } = harness();
  assert.equal(storage.sourcesReady(['file']), false);
  assert.deepEqual(merge('file', 'SET', []), [['ADD', []]]);
  assert.equal(storage.sourcesReady(['file']), true);
  assert.deepEqual(merge('file', 'SET', []), [], 'later empty SETs deliver nothing');
  assert.equal(storage.sourcesReady(['file', 'api']), false);
  merge('api', 'ADD', [makePod('a')]);
  assert.equal(storage.sourcesReady(['file', 'api']), false, 'ADD alone does not make a source ready');
  assert.deepEqual(merge('api', 'SET', [makePod('a')]), [['ADD', []]], 'a first SET with nothing new still signals readiness');
  assert.equal(storage.sourcesReady(['file', 'api']), true);
});

test('a first SET with pods delivers only their ADD', () => {
  const { merge } = harness();
  assert.deepEqual(merge('http', 'SET', [makePod('a')]), [['ADD', ['a']]]);
});

test('duplicate full names within a source: the later pod is dropped with an error log', () => {
  const { merge, logs } = harness();
  const first = makePod('dup', { uid: 'u1' });
  const second = makePod('dup', { uid: 'u2' });
  const otherNamespace = makePod('dup', { uid: 'u3', namespace: 'kube-system' });
  assert.deepEqual(merge('file', 'SET', [first, second, otherNamespace]), [['ADD', ['dup', 'dup']]]);
  const errors = logs.filter((line) => line.code === ErrorCodes.MANIFEST_DUPLICATE);
  assert.equal(errors.length, 1);
  assert.equal(errors[0]!.pod, 'default/dup');
  assert.equal(errors[0]!.source, 'file');
});

test('sources are independent: a SET from one source never touches another\'s pods', () => {
  const { merge, storage } = harness();
  merge('api', 'ADD', [makePod('api-pod')]);
  merge('file', 'SET', [makePod('static')]);
  assert.deepEqual(merge('file', 'SET', []), [['REMOVE', ['static']]]);
  assert.deepEqual(storage.mergedState().map((pod) => pod.metadata?.name), ['api-pod']);
});

test('delivered pods are copies, and input pods are not modified', () => {
  const { merge, updates, storage } = harness();
  const input = makePod('a');
  merge('api', 'ADD', [input]);
  assert.equal(input.metadata!.annotations, undefined, 'the source\'s object is not annotated');
  updates[0]!.pods[0]!.spec!.containers[0]!.image = 'mutated';
  assert.equal(storage.mergedState()[0]!.spec!.containers[0]!.image, 'busybox:1.36');
  assert.deepEqual(merge('api', 'UPDATE', [makePod('a')]), [], 'the mutation did not leak into the storage');
});

test('an unknown operation is ignored with a warning', () => {
  const { merge, logs } = harness();
  assert.deepEqual(merge('api', 'RECONCILE', [makePod('a')]), []);
  assert.ok(logs.some((line) => line.msg === 'Received invalid update type'));
});

/** A value nested `depth` lists deep, built without recursion. */
function nested(depth: number): unknown {
  let value: unknown = [];
  for (let level = 1; level < depth; level++) value = [value];
  return value;
}

test('a pod the merge cannot copy is dropped with one log line naming source, pod and reason; the others go on', () => {
  const { merge, logs } = harness();
  const deep = makePod('deep');
  // Deep enough that structuredClone overflows the stack, as a 1,800-deep array did at shardlet's start.
  (deep.spec!.containers[0] as unknown as Record<string, unknown>).x = nested(200_000);
  assert.deepEqual(merge('api', 'SET', [makePod('a'), deep, makePod('b')]), [['ADD', ['a', 'b']]]);
  const rejected = logs.filter((line) => line.msg === 'Pod from source cannot be used, ignoring it');
  assert.equal(rejected.length, 1);
  assert.equal(rejected[0]!.source, 'api');
  assert.equal(rejected[0]!.pod, 'default/deep');
  assert.match(String(rejected[0]!.reason), /call stack/);
});

test('an error thrown by the receiver of an update is logged, not thrown into the source', () => {
  const logs: Array<Record<string, unknown>> = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void logs.push(JSON.parse(line) as Record<string, unknown>) });
  const storage = new PodStorage(() => {
    throw new Error('receiver broke');
  }, logger);
  assert.doesNotThrow(() => storage.merge('file', { op: 'SET', source: 'file', pods: [makePod('a')] }));
  assert.ok(logs.some((line) => line.msg === 'Handling a pod update failed' && line.err === 'receiver broke' && line.source === 'file'));
  assert.equal(storage.mergedState().length, 1, 'the merge state itself is kept');
});

test('things that are not pods are dropped with a log line, not thrown', () => {
  const { merge, logs } = harness();
  const junk = [null, 5, 'pod', { metadata: 'x' }, { metadata: { uid: 7 } }] as unknown as Pod[];
  assert.deepEqual(merge('api', 'SET', [...junk, makePod('a')]), [['ADD', ['a']]]);
  assert.equal(logs.filter((line) => line.msg === 'Pod from source cannot be used, ignoring it').length, junk.length);
});
