import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { V1Toleration } from '@kubernetes/client-node';
import { findUntoleratedTaint, toleratesTaint, type NodeTaint } from '../../../src/shared/admission/taints.js';

const TAINT: NodeTaint = { key: 'dedicated', value: 'db', effect: 'NoExecute' };

const cases: Array<[string, V1Toleration, boolean]> = [
  ['Equal, same key, value and effect', { key: 'dedicated', operator: 'Equal', value: 'db', effect: 'NoExecute' }, true],
  ['operator defaults to Equal', { key: 'dedicated', value: 'db' }, true],
  ['Equal, other value', { key: 'dedicated', operator: 'Equal', value: 'web' }, false],
  ['Equal, no value against a valued taint', { key: 'dedicated', operator: 'Equal' }, false],
  ['Exists, same key, any value', { key: 'dedicated', operator: 'Exists' }, true],
  ['Exists, other key', { key: 'other', operator: 'Exists' }, false],
  ['Exists with empty key tolerates everything', { operator: 'Exists' }, true],
  ['empty effect matches any effect', { key: 'dedicated', operator: 'Exists', effect: '' }, true],
  ['other effect', { key: 'dedicated', operator: 'Exists', effect: 'NoSchedule' }, false],
  ['Exists with empty key but other effect', { operator: 'Exists', effect: 'NoSchedule' }, false],
  ['comparison operators are gated off', { key: 'dedicated', operator: 'Gt', value: '1' }, false],
];

for (const [name, toleration, want] of cases) {
  test(`toleratesTaint: ${name}`, () => {
    assert.equal(toleratesTaint(toleration, TAINT), want);
  });
}

test('toleratesTaint: Equal matches a taint without value only with an empty value', () => {
  const bare: NodeTaint = { key: 'maintenance', effect: 'NoExecute' };
  assert.equal(toleratesTaint({ key: 'maintenance', operator: 'Equal' }, bare), true);
  assert.equal(toleratesTaint({ key: 'maintenance', operator: 'Equal', value: 'x' }, bare), false);
});

test('findUntoleratedTaint returns the first taint passing the filter that nothing tolerates', () => {
  const taints: NodeTaint[] = [
    { key: 'a', effect: 'NoSchedule' },
    { key: 'b', value: '1', effect: 'NoExecute' },
    { key: 'c', effect: 'NoExecute' },
  ];
  const noExecute = (taint: NodeTaint): boolean => taint.effect === 'NoExecute';
  assert.deepEqual(findUntoleratedTaint(taints, [], noExecute), taints[1]);
  assert.deepEqual(findUntoleratedTaint(taints, [{ key: 'b', operator: 'Exists' }], noExecute), taints[2]);
  assert.equal(findUntoleratedTaint(taints, [{ effect: 'NoExecute', operator: 'Exists' }], noExecute), undefined);
});
