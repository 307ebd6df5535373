import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ContainerStartError, ErrorCodes, ShardletError, fromWire, toWire } from '../../src/shared/errors.js';

test('a container start failure crosses a thread and comes back as the class it was thrown as', () => {
  const thrown = new ContainerStartError(ErrorCodes.IMAGE_PULL_BACKOFF, 'Back-off pulling image "x"', 'ImagePullBackOff', 'app', 7_500);
  const rebuilt = fromWire(structuredClone(toWire(thrown)));
  assert.ok(rebuilt instanceof ContainerStartError);
  assert.equal(rebuilt.code, 'SHARDLET_IMAGE_PULL_BACKOFF');
  assert.equal(rebuilt.reason, 'ImagePullBackOff');
  assert.equal(rebuilt.container, 'app');
  assert.equal(rebuilt.retryAfterMs, 7_500);
  assert.equal(rebuilt.message, thrown.message);
});

test('other coded errors come back as ShardletError with their code and details; a stray reason does not make them container failures', () => {
  const rebuilt = fromWire(toWire(new ShardletError(ErrorCodes.RUN_SANDBOX, 'Failed to create pod sandbox', { reason: 'FailedCreatePodSandBox' })));
  assert.ok(!(rebuilt instanceof ContainerStartError));
  assert.equal(rebuilt.code, 'SHARDLET_RUN_SANDBOX');
  assert.deepEqual(rebuilt.details, { reason: 'FailedCreatePodSandBox' });
});

test('anything else thrown crosses as SHARDLET_INTERNAL, keeping a gRPC code', () => {
  const grpcFailure = Object.assign(new Error('14 UNAVAILABLE: connect ENOENT'), { code: 14 });
  assert.deepEqual(toWire(grpcFailure), { code: 'SHARDLET_INTERNAL', message: '14 UNAVAILABLE: connect ENOENT', details: { grpcCode: 14 } });
});
