import assert from 'node:assert/strict';
import { test } from 'node:test';
import { diffSnapshots, type RelistEntry, type RelistSnapshot } from '../../../src/shared/pleg/relist-diff.js';

const snapshot = (entries: Array<[string, RelistEntry]>): RelistSnapshot => new Map(entries);
const container = (state: RelistEntry['state']): RelistEntry => ({ podUid: 'u1', kind: 'container', state });

const cases: Array<{ name: string; before: RelistSnapshot; after: RelistSnapshot; expected: string[] }> = [
  { name: 'new running container', before: snapshot([]), after: snapshot([['c1', container('running')]]), expected: ['ContainerStarted c1'] },
  { name: 'running to exited', before: snapshot([['c1', container('running')]]), after: snapshot([['c1', container('exited')]]), expected: ['ContainerDied c1'] },
  { name: 'exited then removed', before: snapshot([['c1', container('exited')]]), after: snapshot([]), expected: ['ContainerRemoved c1'] },
  { name: 'running then gone reports a death', before: snapshot([['c1', container('running')]]), after: snapshot([]), expected: ['ContainerDied c1'] },
  { name: 'unchanged is silent', before: snapshot([['c1', container('running')]]), after: snapshot([['c1', container('running')]]), expected: [] },
  {
    name: 'sandbox change',
    before: snapshot([['s1', { podUid: 'u1', kind: 'sandbox', state: 'running' }]]),
    after: snapshot([['s1', { podUid: 'u1', kind: 'sandbox', state: 'exited' }]]),
    expected: ['PodSandboxChanged s1'],
  },
];

for (const { name, before, after, expected } of cases) {
  test(`relist diff: ${name}`, () => {
    assert.deepEqual(diffSnapshots(before, after).map((e) => `${e.type} ${e.id}`), expected);
  });
}
