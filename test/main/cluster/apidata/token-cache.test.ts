// ServiceAccountTokenCache's refresh rule with a fake clock and a fake TokenRequest.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import type { KubeClients } from '../../../../src/main/cluster/apiclient/kube-client.js';
import { ServiceAccountTokenCache } from '../../../../src/main/cluster/apidata/token-cache.js';

const POD = { namespace: 'ns', name: 'p', uid: 'uid-1' };
const REF = { serviceAccountName: 'default', audience: '', expirationSeconds: 1000 };

function fakeApi(): { clients: KubeClients; requests: unknown[]; setFailing(failing: boolean): void; clock: { nowMs: number } } {
  const requests: unknown[] = [];
  const clock = { nowMs: Date.parse('2025-01-01T00:00:00Z') };
  let failing = false;
  const core = {
    createNamespacedServiceAccountToken: async (param: { body: { spec: { expirationSeconds: number } } }) => {
      requests.push(param);
      if (failing) throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
      const expirationSeconds = param.body.spec.expirationSeconds;
      return {
        spec: { audiences: [], expirationSeconds },
        status: { token: `token-${requests.length}`, expirationTimestamp: new Date(clock.nowMs + expirationSeconds * 1000) },
      };
    },
  };
  const clients = { core, limiter: { take: async () => {} } } as unknown as KubeClients;
  return { clients, requests, clock, setFailing: (value) => (failing = value) };
}

test('a token is reused until 80% of its lifetime has passed, then requested again', async () => {
  const api = fakeApi();
  const cache = new ServiceAccountTokenCache({ clients: api.clients, logger: pino({ level: 'silent' }), onRefreshDue: () => {}, now: () => api.clock.nowMs });
  try {
    assert.equal((await cache.get(POD, REF))?.token, 'token-1');
    api.clock.nowMs += 799_000;
    assert.equal((await cache.get(POD, REF))?.token, 'token-1');
    api.clock.nowMs += 2_000;
    assert.equal((await cache.get(POD, REF))?.token, 'token-2');
    assert.equal(api.requests.length, 2);
    assert.deepEqual((api.requests[0] as { body: unknown }).body, {
      spec: { audiences: [], expirationSeconds: 1000, boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'p', uid: 'uid-1' } },
    });
  } finally {
    cache.stop();
  }
});

test('concurrent asks make one request; a failed refresh keeps the token while it is valid', async () => {
  const api = fakeApi();
  const cache = new ServiceAccountTokenCache({ clients: api.clients, logger: pino({ level: 'silent' }), onRefreshDue: () => {}, now: () => api.clock.nowMs });
  try {
    const [a, b] = await Promise.all([cache.get(POD, REF), cache.get(POD, REF)]);
    assert.equal(a?.token, 'token-1');
    assert.deepEqual(a, b);
    assert.equal(api.requests.length, 1);

    api.setFailing(true);
    api.clock.nowMs += 900_000;
    assert.equal((await cache.get(POD, REF))?.token, 'token-1', 'still valid: kept');
    api.clock.nowMs += 200_000;
    assert.equal(await cache.get(POD, REF), null, 'expired: none');
  } finally {
    cache.stop();
  }
});

test('the refresh timer asks for a resync of the pod', async (t) => {
  // Mocked timers (the refresh timer is unref'd), real time, fake clock: a token issued 1000 s ago is due at once.
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const api = fakeApi();
  const due: string[] = [];
  const cache = new ServiceAccountTokenCache({ clients: api.clients, logger: pino({ level: 'silent' }), onRefreshDue: (uid) => due.push(uid), now: () => Date.now() });
  api.clock.nowMs = Date.now() - 1_000_000;
  try {
    await cache.get(POD, { ...REF, expirationSeconds: 1001 });
    assert.deepEqual(due, [], 'by the timer, not during get');
    t.mock.timers.tick(0);
    assert.deepEqual(due, ['uid-1']);
  } finally {
    cache.stop();
  }
});
