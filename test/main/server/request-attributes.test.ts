// Upstream's mapping of kubelet API paths and methods to the attributes it
// authorizes (pkg/kubelet/server/auth_test.go's table, 1.34 with
// KubeletFineGrainedAuthz on).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { requestAttributes } from '../../../src/main/server/request-attributes.js';

const CASES: Array<[method: string, path: string, verb: string, subresources: string[]]> = [
  ['GET', '/stats/summary', 'get', ['stats']],
  ['GET', '/stats', 'get', ['stats']],
  ['GET', '/metrics', 'get', ['metrics']],
  ['GET', '/metrics/cadvisor', 'get', ['metrics']],
  ['GET', '/logs/kubelet.log', 'get', ['log']],
  ['GET', '/pods', 'get', ['pods', 'proxy']],
  ['GET', '/runningpods/', 'get', ['pods', 'proxy']],
  ['GET', '/healthz', 'get', ['healthz', 'proxy']],
  // HEAD has no verb upstream: a rule that grants get does not let it through.
  ['HEAD', '/healthz', '', ['healthz', 'proxy']],
  ['HEAD', '/pods', '', ['pods', 'proxy']],
  ['PROPFIND', '/pods', '', ['pods', 'proxy']],
  ['GET', '/configz', 'get', ['configz', 'proxy']],
  ['GET', '/statusz', 'get', ['statusz', 'proxy']],
  ['GET', '/flagz', 'get', ['configz', 'proxy']],
  ['GET', '/statuszx', 'get', ['proxy']],
  ['POST', '/exec/ns/pod/c', 'create', ['proxy']],
  ['GET', '/exec/ns/pod/c', 'get', ['proxy']],
  ['POST', '/portForward/ns/pod', 'create', ['proxy']],
  ['GET', '/containerLogs/ns/pod/c', 'get', ['proxy']],
  ['PUT', '/run/ns/pod/c', 'update', ['proxy']],
  ['PATCH', '/x', 'patch', ['proxy']],
  ['DELETE', '/x', 'delete', ['proxy']],
  ['OPTIONS', '/x', '', ['proxy']],
  // Only whole path segments: /statsx is not /stats, /podsfoo is not /pods.
  ['GET', '/statsx', 'get', ['proxy']],
  ['GET', '/podsfoo', 'get', ['proxy']],
];

test('paths and methods map to nodes/<subresource> attributes as upstream', () => {
  for (const [method, path, verb, subresources] of CASES) {
    const attributes = requestAttributes(method, path, 'node-a');
    assert.deepEqual(attributes.map((a) => a.subresource), subresources, `${method} ${path}`);
    for (const a of attributes) {
      assert.equal(a.verb, verb, `${method} ${path}`);
      assert.equal(a.resource, 'nodes');
      assert.equal(a.name, 'node-a');
      assert.equal(a.path, path);
    }
  }
});

test('with KubeletFineGrainedAuthz off, /pods, /healthz, /configz and the z-pages are nodes/proxy only', () => {
  for (const path of ['/pods', '/healthz', '/configz', '/runningpods/', '/statusz', '/flagz']) {
    assert.deepEqual(requestAttributes('GET', path, 'n', false).map((a) => a.subresource), ['proxy'], path);
  }
});
