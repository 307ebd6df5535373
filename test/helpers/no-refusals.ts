// The last test of every e2e file that runs shardlet against the test API server:
// the server, authorizing and admitting as kube-apiserver does (Node authorizer,
// NodeRestriction, RBAC, pod validation), refused nothing during the file's run
// except what a test provoked on purpose. Together these make the suite-wide
// count of 403s and 422s that shardlet earned: zero.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Refusal } from '../../src/testapiserver/refusals.js';
import type { TestApiServer } from '../../src/testapiserver/server.js';

/** Says whether a refusal was provoked by a test on purpose (and so is not shardlet's). */
export type ProvokedRefusal = (refusal: Refusal) => boolean;

/** One line per refusal, enough to see who was refused what and why. */
export function describeRefusal(refusal: Refusal): string {
  return `${refusal.code} ${refusal.user} ${refusal.verb} ${refusal.resource}${refusal.name ? ` ${refusal.name}` : ''}: ${refusal.message}`;
}

/** Registers a test that fails naming every refusal not provoked on purpose. */
export function testNoRefusals(apiServers: () => Array<TestApiServer | undefined>, provoked: ProvokedRefusal = () => false): void {
  test('the API server, enforcing a real cluster\'s rules, refused nothing shardlet did', () => {
    const unexpected = apiServers()
      .flatMap((api) => api?.refusals() ?? [])
      .filter((refusal) => !provoked(refusal));
    assert.deepEqual(unexpected.map(describeRefusal), []);
  });
}
