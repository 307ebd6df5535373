// Upstream's nextRotationDeadline: 70 % of the lifetime plus up to 20 % more.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { rotationDeadline } from '../../../../src/main/cluster/bootstrap/index.js';

const notBefore = new Date('2026-01-01T00:00:00Z');
const notAfter = new Date('2026-01-01T10:00:00Z');

for (const [random, hours] of [[0, 7], [0.5, 8], [0.999999, 9]] as const) {
  it(`renews ${hours} h into a 10 h certificate when the jitter draws ${random}`, () => {
    const deadline = rotationDeadline({ notBefore, notAfter }, () => random);
    assert.equal(Math.round((deadline.getTime() - notBefore.getTime()) / 3600_000), hours);
  });
}
