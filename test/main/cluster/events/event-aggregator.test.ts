import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CoreV1Event } from '@kubernetes/client-node';
import {
  AGGREGATE_MESSAGE_PREFIX,
  EventCorrelator,
  formatEventTime,
  SPAM_REFILL_INTERVAL_MS,
  type CorrelateResult,
} from '../../../../src/main/cluster/events/event-aggregator.js';
import { containerFieldPath, EventMessages, nodeObject, podObject, type KubeletEvent } from '../../../../src/shared/events/event-types.js';

const T0 = Date.parse('2024-05-01T10:00:00.250Z');
const POD = { name: 'web', namespace: 'prod', uid: 'uid-1' };

function backOff(message = EventMessages.backOffRestartingContainer('app', 'web', 'prod', 'uid-1'), timestampMs = T0): KubeletEvent {
  return { involvedObject: podObject(POD, containerFieldPath('app')), type: 'Warning', reason: 'BackOff', message, timestampMs };
}

function bodyOf(result: CorrelateResult): CoreV1Event {
  assert.notEqual(result.action, 'drop');
  return (result as Exclude<CorrelateResult, { action: 'drop' }>).body;
}

test('a first event is created as upstream makeEvent builds it', () => {
  const correlator = new EventCorrelator({ nodeName: 'node-a' });
  const result = correlator.correlate(backOff(), T0);
  assert.equal(result.action, 'create');
  assert.deepEqual(bodyOf(result), {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: `web.${(BigInt(T0) * 1_000_000n).toString(16)}`, namespace: 'prod' },
    involvedObject: { kind: 'Pod', apiVersion: 'v1', name: 'web', namespace: 'prod', uid: 'uid-1', fieldPath: 'spec.containers{app}' },
    reason: 'BackOff',
    message: 'Back-off restarting failed container app in pod web_prod(uid-1)',
    type: 'Warning',
    firstTimestamp: new Date('2024-05-01T10:00:00Z'),
    lastTimestamp: new Date('2024-05-01T10:00:00Z'),
    count: 1,
    source: { component: 'kubelet', host: 'node-a' },
    reportingComponent: 'kubelet',
    reportingInstance: 'node-a',
  });
});

test('node events go to the default namespace; same-millisecond events get distinct names', () => {
  const correlator = new EventCorrelator({ nodeName: 'node-a' });
  const event = (reason: string): KubeletEvent => ({
    involvedObject: nodeObject('node-a'),
    type: 'Normal',
    reason,
    message: EventMessages.nodeStatus('node-a', reason),
    timestampMs: T0,
  });
  const first = bodyOf(correlator.correlate(event('NodeHasSufficientMemory'), T0));
  const second = bodyOf(correlator.correlate(event('NodeReady'), T0));
  assert.equal(first.metadata.namespace, 'default');
  assert.deepEqual(first.involvedObject, { kind: 'Node', name: 'node-a', uid: 'node-a' });
  assert.equal(second.message, 'Node node-a status is now: NodeReady');
  assert.notEqual(first.metadata.name, second.metadata.name);
});

test('correlation, table-driven as upstream TestEventCorrelator', () => {
  interface Case {
    name: string;
    /** messages of the events recorded one second apart; all BackOff about one container. */
    messages: string[];
    want: Array<{ action: CorrelateResult['action']; count?: number; messagePrefix?: string }>;
  }
  const distinct = (n: number): string[] => Array.from({ length: n }, (_, i) => `message ${i}`);
  const cases: Case[] = [
    { name: 'first event creates', messages: ['m'], want: [{ action: 'create', count: 1 }] },
    { name: 'a repeat patches with count 2', messages: ['m', 'm'], want: [{ action: 'create', count: 1 }, { action: 'patch', count: 2 }] },
    {
      name: 'three repeats count up',
      messages: ['m', 'm', 'm'],
      want: [{ action: 'create' }, { action: 'patch', count: 2 }, { action: 'patch', count: 3 }],
    },
    {
      name: '11 similar events: the 10th becomes an aggregate, the 11th counts on it',
      messages: distinct(11),
      want: [
        ...Array.from({ length: 9 }, () => ({ action: 'create' as const, count: 1 })),
        { action: 'create', count: 1, messagePrefix: AGGREGATE_MESSAGE_PREFIX },
        { action: 'patch', count: 2, messagePrefix: AGGREGATE_MESSAGE_PREFIX },
      ],
    },
    {
      name: '9 similar events and repeats stay apart',
      messages: [...distinct(9), 'message 0', 'message 8'],
      want: [...Array.from({ length: 9 }, () => ({ action: 'create' as const })), { action: 'patch', count: 2 }, { action: 'patch', count: 2 }],
    },
  ];
  for (const testCase of cases) {
    const correlator = new EventCorrelator({ nodeName: 'node-a' });
    const results = testCase.messages.map((message, i) => correlator.correlate(backOff(message, T0 + i * 1000), T0 + i * 1000));
    testCase.want.forEach((want, i) => {
      const result = results[i];
      assert.equal(result.action, want.action, `${testCase.name}: event ${i}`);
      if (want.count !== undefined) assert.equal(bodyOf(result).count, want.count, `${testCase.name}: count of event ${i}`);
      if (want.messagePrefix) assert.ok(bodyOf(result).message?.startsWith(want.messagePrefix), `${testCase.name}: message of event ${i}`);
    });
  }
});

test('a repeat is a patch of count, lastTimestamp and message of the first event', () => {
  const correlator = new EventCorrelator({ nodeName: 'node-a' });
  const first = correlator.correlate(backOff('m', T0), T0);
  const later = T0 + 42_000;
  const repeat = correlator.correlate(backOff('m', later), later);
  assert.equal(repeat.action, 'patch');
  if (repeat.action !== 'patch') return;
  assert.equal(repeat.name, bodyOf(first).metadata.name);
  assert.equal(repeat.namespace, 'prod');
  assert.deepEqual(repeat.patch, { count: 2, lastTimestamp: '2024-05-01T10:00:42Z', message: 'm' });
  assert.deepEqual(repeat.body.firstTimestamp, new Date('2024-05-01T10:00:00Z'));
  assert.deepEqual(repeat.body.lastTimestamp, new Date('2024-05-01T10:00:42Z'));
  assert.equal(formatEventTime(T0), '2024-05-01T10:00:00Z');
});

test('the server copy given to updateState names the event patched next', () => {
  const correlator = new EventCorrelator({ nodeName: 'node-a' });
  const created = bodyOf(correlator.correlate(backOff('m'), T0));
  correlator.updateState({ ...created, metadata: { ...created.metadata, name: 'renamed', resourceVersion: '7' }, count: 5 });
  const repeat = correlator.correlate(backOff('m', T0 + 1000), T0 + 1000);
  assert.equal(repeat.action, 'patch');
  if (repeat.action !== 'patch') return;
  assert.equal(repeat.name, 'renamed');
  assert.equal(repeat.patch.count, 6);
  assert.equal(repeat.body.metadata.resourceVersion, '7');
});

test('similar events older than the aggregation interval start over', () => {
  const correlator = new EventCorrelator({ nodeName: 'node-a' });
  for (let i = 0; i < 9; i++) correlator.correlate(backOff(`message ${i}`), T0);
  const afterInterval = T0 + 600_001;
  const result = correlator.correlate(backOff('message 9', afterInterval), afterInterval);
  assert.equal(result.action, 'create');
  assert.equal(bodyOf(result).message, 'message 9');
});

test('the spam filter allows a burst of 25 per object, then one per 5 minutes', () => {
  const correlator = new EventCorrelator({ nodeName: 'node-a' });
  // Distinct reasons, so neither aggregation nor dedup applies.
  const event = (i: number, nowMs: number): KubeletEvent => ({ ...backOff(`m${i}`, nowMs), reason: `Reason${i}` });
  const actions = Array.from({ length: 30 }, (_, i) => correlator.correlate(event(i, T0), T0).action);
  assert.equal(actions.filter((a) => a === 'create').length, 25);
  assert.deepEqual(actions.slice(25), ['drop', 'drop', 'drop', 'drop', 'drop']);
  const otherPod: KubeletEvent = { ...event(99, T0), involvedObject: podObject({ ...POD, name: 'other', uid: 'uid-2' }) };
  assert.equal(correlator.correlate(otherPod, T0).action, 'create', 'the budget is per object');
  const refilled = T0 + SPAM_REFILL_INTERVAL_MS;
  assert.equal(correlator.correlate(event(100, refilled), refilled).action, 'create');
  assert.equal(correlator.correlate(event(101, refilled), refilled).action, 'drop');
});

test('a dropped repeat is still counted, as upstream (observe before filter)', () => {
  const correlator = new EventCorrelator({ nodeName: 'node-a', spamBurst: 2 });
  assert.equal(correlator.correlate(backOff('m'), T0).action, 'create');
  assert.equal(correlator.correlate(backOff('m'), T0).action, 'patch');
  assert.equal(correlator.correlate(backOff('m'), T0).action, 'drop');
  const later = T0 + SPAM_REFILL_INTERVAL_MS;
  const result = correlator.correlate(backOff('m', later), later);
  assert.equal(result.action, 'patch');
  if (result.action === 'patch') assert.equal(result.patch.count, 4);
});
