import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { V1NodeSelectorRequirement, V1NodeSelectorTerm } from '@kubernetes/client-node';
import { parseInt64, requiredNodeAffinityMatches } from '../../../src/shared/admission/node-affinity.js';
import type { Pod } from '../../../src/shared/types.js';
import { pod } from './fixtures.js';

const NODE = { name: 'node-a', labels: { zone: 'z1', cores: '8', gpu: '', big: '9223372036854775807' } };

function withTerms(...terms: V1NodeSelectorTerm[]): Pod {
  return pod({ affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } } } });
}

function expr(key: string, operator: string, values?: string[]): V1NodeSelectorTerm {
  const requirement: V1NodeSelectorRequirement = { key, operator, ...(values ? { values } : {}) };
  return { matchExpressions: [requirement] };
}

function field(operator: string, values: string[], key = 'metadata.name'): V1NodeSelectorTerm {
  return { matchFields: [{ key, operator, values }] };
}

const cases: Array<[string, Pod, boolean]> = [
  ['no selector, no affinity', pod(), true],
  ['nodeSelector matches', pod({ nodeSelector: { zone: 'z1' } }), true],
  ['nodeSelector value differs', pod({ nodeSelector: { zone: 'z2' } }), false],
  ['nodeSelector key missing', pod({ nodeSelector: { disk: 'ssd' } }), false],
  ['nodeSelector empty value matches an empty label', pod({ nodeSelector: { gpu: '' } }), true],
  ['In: value listed', withTerms(expr('zone', 'In', ['z0', 'z1'])), true],
  ['In: value not listed', withTerms(expr('zone', 'In', ['z2'])), false],
  ['In: label absent', withTerms(expr('disk', 'In', ['ssd'])), false],
  ['In: no values is invalid', withTerms(expr('zone', 'In', [])), false],
  ['NotIn: value listed', withTerms(expr('zone', 'NotIn', ['z1'])), false],
  ['NotIn: value not listed', withTerms(expr('zone', 'NotIn', ['z2'])), true],
  ['NotIn: label absent matches', withTerms(expr('disk', 'NotIn', ['ssd'])), true],
  ['Exists: present', withTerms(expr('gpu', 'Exists')), true],
  ['Exists: absent', withTerms(expr('disk', 'Exists')), false],
  ['Exists: with values is invalid', withTerms(expr('gpu', 'Exists', ['x'])), false],
  ['DoesNotExist: absent', withTerms(expr('disk', 'DoesNotExist')), true],
  ['DoesNotExist: present', withTerms(expr('zone', 'DoesNotExist')), false],
  ['Gt: 8 > 4', withTerms(expr('cores', 'Gt', ['4'])), true],
  ['Gt: 8 > 8 is false', withTerms(expr('cores', 'Gt', ['8'])), false],
  ['Lt: 8 < 9', withTerms(expr('cores', 'Lt', ['9'])), true],
  ['Lt: 8 < 8 is false', withTerms(expr('cores', 'Lt', ['8'])), false],
  ['Gt: non-integer node label', withTerms(expr('zone', 'Gt', ['1'])), false],
  ['Gt: non-integer value is invalid', withTerms(expr('cores', 'Gt', ['1.5'])), false],
  ['Gt: two values is invalid', withTerms(expr('cores', 'Gt', ['1', '2'])), false],
  ['Gt: int64 max label', withTerms(expr('big', 'Gt', ['9223372036854775806'])), true],
  ['Gt: absent label', withTerms(expr('disk', 'Gt', ['1'])), false],
  ['unknown operator', withTerms(expr('zone', 'Equals', ['z1'])), false],
  ['matchFields In this node', withTerms(field('In', ['node-a'])), true],
  ['matchFields In another node', withTerms(field('In', ['node-b'])), false],
  ['matchFields NotIn another node', withTerms(field('NotIn', ['node-b'])), true],
  ['matchFields NotIn this node', withTerms(field('NotIn', ['node-a'])), false],
  ['matchFields two values is invalid', withTerms(field('In', ['node-a', 'node-b'])), false],
  ['matchFields Exists is invalid', withTerms(field('Exists', [])), false],
  ['terms are ORed', withTerms(expr('zone', 'In', ['z9']), expr('zone', 'In', ['z1'])), true],
  [
    'expressions and fields in one term are ANDed',
    withTerms({ matchExpressions: [{ key: 'zone', operator: 'In', values: ['z1'] }], matchFields: [{ key: 'metadata.name', operator: 'In', values: ['node-b'] }] }),
    false,
  ],
  ['an empty term matches nothing', withTerms({}), false],
  ['no terms match nothing', withTerms(), false],
  ['an invalid term does not spoil a valid one', withTerms(expr('zone', 'In', []), expr('zone', 'Exists')), true],
  [
    'nodeSelector and affinity must both match',
    { ...withTerms(expr('zone', 'Exists')), spec: { ...withTerms(expr('zone', 'Exists')).spec!, nodeSelector: { zone: 'z2' } } },
    false,
  ],
];

for (const [name, candidate, want] of cases) {
  test(`requiredNodeAffinityMatches: ${name}`, () => {
    assert.equal(requiredNodeAffinityMatches(candidate, NODE), want);
  });
}

test('parseInt64 follows strconv.ParseInt base 10', () => {
  assert.equal(parseInt64('+42'), 42n);
  assert.equal(parseInt64('-7'), -7n);
  assert.equal(parseInt64('9223372036854775808'), undefined);
  assert.equal(parseInt64('1_000'), undefined);
  assert.equal(parseInt64(''), undefined);
  assert.equal(parseInt64(' 1'), undefined);
});
