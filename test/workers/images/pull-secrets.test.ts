import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { PodApiData, SecretData } from '../../../src/shared/shard-protocol.js';
import type { Pod } from '../../../src/shared/types.js';
import { normalizedRepository, pullAuthFor, pullAuthsFor, urlsMatch } from '../../../src/workers/images/pull-secrets.js';

const b64 = (text: string) => Buffer.from(text).toString('base64');

function dockerConfigJson(auths: Record<string, unknown>): SecretData {
  return { type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': b64(JSON.stringify({ auths })) } };
}

function podPulling(...secretNames: string[]): Pod {
  return {
    metadata: { name: 'web', namespace: 'shop', uid: 'u1' },
    spec: { containers: [{ name: 'app', image: 'x' }], imagePullSecrets: secretNames.map((name) => ({ name })) },
  };
}

function data(secrets: PodApiData['secrets']): PodApiData {
  return { configMaps: {}, secrets, serviceAccountTokens: {} };
}

test('pull auth: a dockerconfigjson entry matches its registry host, with auth decoded', () => {
  const apiData = data({
    regcred: dockerConfigJson({
      'registry.example.com': { auth: b64('robot:pa:ss') },
      'https://other.example.com:5000/v2/': { username: 'u2', password: 'p2' },
    }),
  });
  const pod = podPulling('regcred');
  assert.deepEqual(pullAuthFor('registry.example.com/team/app:1.0', pod, apiData), { username: 'robot', password: 'pa:ss' });
  assert.deepEqual(pullAuthFor('other.example.com:5000/app@sha256:abc', pod, apiData), { username: 'u2', password: 'p2' });
  assert.equal(pullAuthFor('other.example.com/app', pod, apiData), undefined, 'the port must match');
  assert.equal(pullAuthFor('registry.example.org/app', pod, apiData), undefined);
  assert.equal(pullAuthFor('registry.example.com/app', pod, undefined), undefined, 'standalone: no API data');
});

test('pull auth: the default registry (docker.io / index.docker.io) for unqualified images', () => {
  const legacy = data({ hub: dockerConfigJson({ 'https://index.docker.io/v1/': { username: 'me', password: 'pw' } }) });
  for (const image of ['nginx', 'nginx:1.27', 'library/nginx', 'docker.io/library/nginx', 'index.docker.io/me/app', 'me/app:v1']) {
    assert.deepEqual(pullAuthFor(image, podPulling('hub'), legacy), { username: 'me', password: 'pw' }, image);
  }
  assert.equal(pullAuthFor('quay.io/me/app', podPulling('hub'), legacy), undefined);
  const modern = data({ hub: dockerConfigJson({ 'docker.io': { username: 'd', password: 'p' } }) });
  assert.deepEqual(pullAuthFor('busybox', podPulling('hub'), modern), { username: 'd', password: 'p' });
});

test('pull auth: more specific keys first, globs per host label, dockercfg secrets, missing secrets skipped', () => {
  const apiData = data({
    wide: dockerConfigJson({ '*.example.com': { username: 'glob', password: 'g' } }),
    narrow: dockerConfigJson({ 'registry.example.com/team': { username: 'team', password: 't' } }),
    legacy: { type: 'kubernetes.io/dockercfg', data: { '.dockercfg': b64(JSON.stringify({ 'quay.io': { auth: b64('q:1') } })) } },
    opaque: { type: 'Opaque', data: { '.dockerconfigjson': b64('{"auths":{"quay.io":{"username":"no"}}}') } },
    absent: null,
  });
  const pod = podPulling('absent', 'wide', 'narrow', 'legacy', 'opaque', 'unfetched');
  assert.deepEqual(pullAuthsFor('registry.example.com/team/app', pod, apiData), [
    { username: 'team', password: 't' },
    { username: 'glob', password: 'g' },
  ]);
  assert.deepEqual(pullAuthFor('registry.example.com/other/app', pod, apiData), { username: 'glob', password: 'g' });
  assert.equal(pullAuthFor('a.b.example.com/app', pod, apiData), undefined, 'a glob matches one label only');
  assert.deepEqual(pullAuthsFor('quay.io/org/app', pod, apiData), [{ username: 'q', password: '1' }], 'the Opaque secret is ignored');
  assert.throws(() => pullAuthFor('x', podPulling('bad'), data({ bad: dockerConfigJson({ 'r.io': { auth: b64('nocolon') } }) })), {
    code: 'SHARDLET_IMAGE_PULL_FAILED',
    message: /invalid image pull secret shop\/bad: unable to parse auth field/,
  });
});

test('pull auth: image normalisation and URL matching as upstream', () => {
  assert.equal(normalizedRepository('nginx'), 'docker.io/library/nginx');
  assert.equal(normalizedRepository('nginx:1.27@sha256:abc'), 'docker.io/library/nginx');
  assert.equal(normalizedRepository('index.docker.io/me/app'), 'docker.io/me/app');
  assert.equal(normalizedRepository('localhost/app:dev'), 'localhost/app');
  assert.equal(normalizedRepository('reg.io:5000/a/b:c'), 'reg.io:5000/a/b');
  assert.equal(urlsMatch('*.kubernetes.io', 'prefix.kubernetes.io/foo'), true);
  assert.equal(urlsMatch('prefix.*.io', 'prefix.kubernetes.io'), true);
  assert.equal(urlsMatch('*-good.kubernetes.io', 'prefix-good.kubernetes.io'), true);
  assert.equal(urlsMatch('*.kubernetes.io', 'kubernetes.io'), false);
  assert.equal(urlsMatch('kubernetes.io/foo', 'kubernetes.io/bar'), false);
  assert.equal(urlsMatch('kubernetes.io:8080', 'kubernetes.io'), false);
});
