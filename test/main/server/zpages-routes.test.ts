// /statusz and /flagz as upstream's z-pages answer them: plain text by default (the
// header warning, fields under a random delimiter), the structured objects of
// config.k8s.io/v1beta1 and the deprecated v1alpha1 (with a Warning) for an Accept
// naming group, version and kind, 406 for anything else, and no page with its
// feature gate off.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { parse } from 'yaml';
import { commandLineFlags } from '../../../src/main/server/flagz.js';
import { KubeletRoutes } from '../../../src/main/server/kubelet-routes.js';
import { aggregatePaths, unixDate, uptimeText } from '../../../src/main/server/statusz.js';
import { negotiateZpage } from '../../../src/main/server/zpage-negotiation.js';
import { addZpageRoutes } from '../../../src/main/server/zpages-routes.js';
import { serveRoutes, type RouteServer } from '../../../src/tools/route-server.js';

const STARTED_MS = Date.parse('2026-09-04T01:00:00Z');
/** The clock the pages read: 1 h 01 min 05 s after the start. */
const NOW_MS = STARTED_MS + 3665_000;
const ARGV = ['--config=/etc/kubernetes/kubelet.yaml', '--v', '2', '--fail-swap-on=false', '--register-node'];
let server: RouteServer;

before(async () => {
  const routes = new KubeletRoutes();
  routes.add({ path: '/pods', methods: ['GET'], request: (_req, res) => void res.end() });
  routes.add({ path: '/containerLogs/', methods: ['GET'], request: (_req, res) => void res.end() });
  addZpageRoutes(routes, {
    featureGates: {},
    argv: ARGV,
    random: () => 0, // the ':' delimiter
    now: () => NOW_MS,
    statusz: () => ({
      componentName: 'kubelet',
      startTimeMs: STARTED_MS,
      binaryVersion: '1.34.0-shardlet.0.1.0',
      emulationVersion: '1.34',
      runtimeVersion: 'node22.19.0',
      paths: routes.list().map((route) => route.path),
    }),
  });
  server = await serveRoutes(routes);
});

after(async () => {
  await server?.close();
});

async function get(path: string, accept?: string): Promise<{ status: number; type: string; warning: string | null; body: string }> {
  const res = await fetch(`${server.url}${path}`, { headers: accept === undefined ? {} : { accept } });
  return { status: res.status, type: res.headers.get('content-type') ?? '', warning: res.headers.get('warning'), body: await res.text() };
}

test('negotiation: upstream’s table for the z-pages', () => {
  const cases: Array<[string | undefined, string]> = [
    [undefined, 'text'],
    ['', 'text'],
    ['text/plain', 'text'],
    ['*/*', 'text'],
    ['application/json;v=v1beta1;g=config.k8s.io;as=Statusz', 'json v1beta1'],
    ['application/yaml;v=v1beta1;g=config.k8s.io;as=Statusz', 'yaml v1beta1'],
    ['application/json;g=config.k8s.io;v=v1alpha1;as=Statusz,application/json;g=config.k8s.io;v=v1beta1;as=Statusz', 'json v1alpha1'],
    ['application/json;g=config.k8s.io;v=v1beta1;as=Statusz,application/json;g=config.k8s.io;v=v1alpha1;as=Statusz', 'json v1beta1'],
    ['application/json;v=foo;g=config.k8s.io;as=Statusz,*/*', 'text'],
    ['application/json;q=0.5;v=v1beta1;g=config.k8s.io;as=Statusz,text/plain', 'text'],
    ['application/json', 'not-acceptable'],
    ['application/json;v=v1beta1;g=config.k8s.io', 'not-acceptable'],
    ['application/json;v=v1beta1;g=config.k8s.io;as=Flagz', 'not-acceptable'],
    ['application/xml', 'not-acceptable'],
    ['application/cbor;v=v1beta1;g=config.k8s.io;as=Statusz', 'not-acceptable'],
  ];
  for (const [accept, want] of cases) {
    const choice = negotiateZpage(accept, 'Statusz');
    const got = choice.kind === 'structured' ? `${choice.format} ${choice.version}` : choice.kind;
    assert.equal(got, want, `Accept: ${accept}`);
  }
});

test('/statusz as text: the header warning, then the fields under one delimiter, and the served paths', async () => {
  const { status, type, body } = await get('/statusz');
  assert.equal(status, 200);
  assert.equal(type, 'text/plain; charset=utf-8');
  assert.equal(
    body,
    '\nkubelet statusz\nWarning: This endpoint is not meant to be machine parseable, has no formatting compatibility guarantees and is for debugging purposes only.\n' +
      '\nStarted: Fri Sep  4 01:00:00 UTC 2026\nUp: 1 hr 01 min 05 sec\nGo version: node22.19.0\nBinary version: 1.34.0-shardlet.0.1.0\nEmulation version: 1.34\nPaths: /containerLogs /flagz /pods /statusz\n',
  );
});

test('/statusz structured: v1beta1 in JSON and YAML; v1alpha1 with a deprecation Warning; 406 as a Status', async () => {
  const json = await get('/statusz', 'application/json;v=v1beta1;g=config.k8s.io;as=Statusz');
  assert.equal(json.status, 200);
  assert.equal(json.warning, null);
  const object = JSON.parse(json.body);
  assert.deepEqual(
    { kind: object.kind, apiVersion: object.apiVersion, metadata: object.metadata, startTime: object.startTime, binaryVersion: object.binaryVersion, emulationVersion: object.emulationVersion, paths: object.paths },
    { kind: 'Statusz', apiVersion: 'config.k8s.io/v1beta1', metadata: { name: 'kubelet' }, startTime: '2026-09-04T01:00:00Z', binaryVersion: '1.34.0-shardlet.0.1.0', emulationVersion: '1.34', paths: ['/containerLogs', '/flagz', '/pods', '/statusz'] },
  );
  assert.equal(object.uptimeSeconds, 3665);
  const yaml = await get('/statusz', 'application/yaml;v=v1beta1;g=config.k8s.io;as=Statusz');
  assert.equal(parse(yaml.body).kind, 'Statusz');
  const alpha = await get('/statusz', 'application/json;v=v1alpha1;g=config.k8s.io;as=Statusz');
  assert.equal(JSON.parse(alpha.body).apiVersion, 'config.k8s.io/v1alpha1');
  assert.match(alpha.warning ?? '', /^299 - ".*deprecated.*"$/);
  const refused = await get('/statusz', 'application/json');
  assert.equal(refused.status, 406);
  assert.equal(JSON.parse(refused.body).reason, 'NotAcceptable');
});

test('/flagz: the command line’s flags sorted under the warning, and as a Flagz object', async () => {
  const text = await get('/flagz');
  assert.equal(
    text.body,
    '\nkubelet flagz\nWarning: This endpoint is not meant to be machine parseable, has no formatting compatibility guarantees and is for debugging purposes only.\n' +
      'config:/etc/kubernetes/kubelet.yaml\nfail-swap-on:false\nregister-node:true\nv:2\n',
  );
  const object = JSON.parse((await get('/flagz', 'application/json;v=v1beta1;g=config.k8s.io;as=Flagz')).body);
  assert.deepEqual(object, {
    kind: 'Flagz',
    apiVersion: 'config.k8s.io/v1beta1',
    metadata: { name: 'kubelet' },
    flags: { config: '/etc/kubernetes/kubelet.yaml', 'fail-swap-on': 'false', 'register-node': 'true', v: '2' },
  });
  assert.equal((await get('/flagz', 'application/json;v=v1beta1;g=config.k8s.io;as=Statusz')).status, 406);
});

test('with ComponentStatusz or ComponentFlagz off there is no such page', () => {
  for (const [gate, path] of [['ComponentStatusz', '/statusz'], ['ComponentFlagz', '/flagz']] as const) {
    const routes = new KubeletRoutes();
    addZpageRoutes(routes, { featureGates: { [gate]: false }, argv: [], statusz: () => { throw new Error('not asked'); } });
    assert.equal(routes.match(path), undefined, `${gate}=false`);
    assert.equal(routes.list().length, 1, 'the other page stays');
  }
});

test('helpers: Go’s UnixDate layout, upstream’s uptime and path aggregation, the command line', () => {
  assert.equal(unixDate(Date.parse('2024-10-16T21:03:43Z')), 'Wed Oct 16 21:03:43 UTC 2024');
  assert.equal(uptimeText(3665), '1 hr 01 min 05 sec');
  assert.deepEqual(aggregatePaths(['/metrics/cadvisor', '/metrics', '/api/v1', '/', '/stats/summary']), ['/metrics', '/stats']);
  assert.deepEqual(commandLineFlags(['--a=1', '-v', '4', '--b', '--c', 'x=y']), { a: '1', v: '4', b: 'true', c: 'x=y' });
});
