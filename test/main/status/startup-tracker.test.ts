import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FORGOTTEN_RECORD_RETENTION_MS, StartupTracker } from '../../../src/main/status/startup-tracker.js';
import type { Pod } from '../../../src/shared/types.js';

const pod = (uid: string): Pod => ({ metadata: { uid, name: uid, namespace: 'default' }, spec: { containers: [] } });

test('the record of a pod that is gone stays readable for the retention, then goes; live pods keep theirs', () => {
  let nowMs = 1_000;
  const tracker = new StartupTracker(() => nowMs);
  tracker.seen(pod('live'));
  tracker.seen(pod('gone'));
  tracker.forget('gone');
  nowMs += FORGOTTEN_RECORD_RETENTION_MS - 1;
  assert.deepEqual(tracker.records().map((r) => r.uid).sort(), ['gone', 'live']);
  nowMs += 1;
  assert.deepEqual(tracker.records().map((r) => r.uid), ['live']);
});

test('churn keeps the number of records bounded by the pods seen within the retention', () => {
  let nowMs = 0;
  const tracker = new StartupTracker(() => nowMs);
  // 10 pods a second come and go for an hour.
  for (let i = 0; i < 36_000; i++) {
    nowMs = i * 100;
    tracker.seen(pod(`p${i}`));
    tracker.forget(`p${i}`);
  }
  const retainedMax = FORGOTTEN_RECORD_RETENTION_MS / 100 + 1;
  assert.ok(tracker.records().length <= retainedMax, `${tracker.records().length} records kept`);
});
