import assert from 'node:assert/strict';
import { test } from 'node:test';
import { expand, mappingFor } from '../../../src/workers/kuberuntime/expansion.js';

const mapping = mappingFor(new Map([['VAR_A', 'A'], ['VAR_B', 'B'], ['EMPTY', '']]));

// Cases from the semantics of upstream's expansion package.
const cases: Array<[string, string]> = [
  ['$(VAR_A)', 'A'],
  ['___$(VAR_A)___', '___A___'],
  ['$(VAR_A)-$(VAR_B)', 'A-B'],
  ['$(EMPTY)x', 'x'],
  ['$(UNKNOWN)', '$(UNKNOWN)'],
  ['$$(VAR_A)', '$(VAR_A)'],
  ['$$$(VAR_A)', '$A'],
  ['$$$$(VAR_A)', '$$(VAR_A)'],
  ['$(VAR_A', '$(VAR_A'],
  ['$VAR_A', '$VAR_A'],
  ['trailing $', 'trailing $'],
  ['$', '$'],
  ['$()', '$()'],
  ['$(VAR_A)$(VAR_A', 'A$(VAR_A'],
  ['no refs', 'no refs'],
];

for (const [input, expected] of cases) {
  test(`expand ${JSON.stringify(input)}`, () => {
    assert.equal(expand(input, mapping), expected);
  });
}
