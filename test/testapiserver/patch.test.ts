// Patch semantics, table-driven: strategic merge patch as the kubelet's status
// manager and kubectl apply send it, JSON merge patch and JSON patch.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { jsonPatch, mergePatch, strategicMerge } from '../../src/testapiserver/patch.js';
import { matchesLabels, parseLabelSelector } from '../../src/testapiserver/selectors.js';

describe('strategicMerge', () => {
  const cases: Array<{ name: string; original: object; patch: object; want: object }> = [
    {
      name: 'merges conditions by type and orders them by $setElementOrder',
      original: { conditions: [{ type: 'PodScheduled', status: 'True' }, { type: 'Ready', status: 'False' }] },
      patch: { '$setElementOrder/conditions': [{ type: 'Initialized' }, { type: 'Ready' }, { type: 'PodScheduled' }], conditions: [{ type: 'Initialized', status: 'True' }, { type: 'Ready', status: 'True' }] },
      want: { conditions: [{ type: 'Initialized', status: 'True' }, { type: 'Ready', status: 'True' }, { type: 'PodScheduled', status: 'True' }] },
    },
    {
      name: 'merges containers by name, deletes with $patch: delete',
      original: { containers: [{ name: 'a', image: 'x' }, { name: 'b', image: 'y' }] },
      patch: { containers: [{ name: 'a', image: 'z' }, { name: 'b', $patch: 'delete' }] },
      want: { containers: [{ name: 'a', image: 'z' }] },
    },
    {
      // PodStatus.containerStatuses has no patchMergeKey upstream: a status patch replaces it whole,
      // so a container's old waiting state never lingers beside its new running state.
      name: 'replaces container statuses whole',
      original: { containerStatuses: [{ name: 'a', state: { waiting: { reason: 'CreateContainerConfigError' } } }] },
      patch: { containerStatuses: [{ name: 'a', state: { running: { startedAt: 't' } } }] },
      want: { containerStatuses: [{ name: 'a', state: { running: { startedAt: 't' } } }] },
    },
    {
      name: 'replaces lists without a merge key and removes null fields',
      original: { podIP: '1.1.1.1', images: [{ names: ['x'] }], message: 'old' },
      patch: { images: [{ names: ['y'] }], message: null },
      want: { podIP: '1.1.1.1', images: [{ names: ['y'] }] },
    },
    {
      name: 'replaces a map with $patch: replace',
      original: { state: { waiting: { reason: 'ContainerCreating' } } },
      patch: { state: { $patch: 'replace', running: { startedAt: 't' } } },
      want: { state: { running: { startedAt: 't' } } },
    },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(strategicMerge(c.original as never, c.patch as never), c.want));
});

describe('mergePatch and jsonPatch', () => {
  it('merge patch replaces lists and deletes nulls', () => {
    assert.deepEqual(mergePatch({ a: [1, 2], b: { c: 1, d: 2 } }, { a: [3], b: { d: null } }), { a: [3], b: { c: 1 } });
  });
  it('json patch adds, replaces, removes and tests', () => {
    const doc = { metadata: { labels: { a: '1' } }, list: [1, 2] };
    const ops = [
      { op: 'add', path: '/metadata/labels/b', value: '2' },
      { op: 'replace', path: '/list/0', value: 9 },
      { op: 'remove', path: '/metadata/labels/a' },
      { op: 'add', path: '/list/-', value: 3 },
      { op: 'test', path: '/list/1', value: 2 },
    ];
    assert.deepEqual(jsonPatch(doc, ops), { metadata: { labels: { b: '2' } }, list: [9, 2, 3] });
    assert.throws(() => jsonPatch(doc, [{ op: 'test', path: '/list/0', value: 5 }]));
  });
});

describe('label selectors', () => {
  const table: Array<[string, Record<string, string>, boolean]> = [
    ['app=web', { app: 'web' }, true],
    ['app==web,tier!=db', { app: 'web', tier: 'db' }, false],
    ['app in (web, api)', { app: 'api' }, true],
    ['app notin (web)', {}, true],
    ['tier', { app: 'web' }, false],
    ['!tier', { app: 'web' }, true],
  ];
  for (const [selector, labels, want] of table) it(`${selector} on ${JSON.stringify(labels)}`, () => assert.equal(matchesLabels(parseLabelSelector(selector), labels), want));
});
