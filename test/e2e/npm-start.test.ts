// `npm start` (src/tools/start-demo.ts) as a newcomer runs it: the kubelet gets a
// config file, not deprecated flags, and that config is the secure one of a
// standalone kubelet (its API on 127.0.0.1 only, anonymous off, a client
// certificate from the demo's own CA the only way in, no read-only port). Started
// for real, it shows the example pods Running and logs no warning at all.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { stringify } from 'yaml';
import { parseFlags } from '../../src/main/options/flags.js';
import { mergeFlags, parseKubeletConfig } from '../../src/main/options/kubelet-config.js';
import { DEMO_API_ADDRESS, demoKubeletConfig, demoKubeletFlags } from '../../src/tools/demo-config.js';
import { freePort } from '../../src/tools/free-port.js';
import { PACKAGE_ROOT, signalGroup, waitUntil } from '../helpers/kubelet-process.js';

const DEMO_TIMEOUT_MS = 180_000;

describe('the demo\'s kubelet configuration', () => {
  const config = demoKubeletConfig({
    runtimeEndpoint: 'unix:///tmp/demo/sim.sock',
    staticPodPath: '/tmp/demo/manifests',
    clientCAFile: '/tmp/demo/pki/ca.crt',
    podLogsDir: '/tmp/demo/pod-logs',
    port: 10250,
  });
  const options = mergeFlags(parseKubeletConfig(stringify(config), '/tmp/demo/kubelet-config.yaml'), parseFlags(demoKubeletFlags('/tmp/demo/kubelet-config.yaml', '/tmp/demo/root')));

  test('serves :10250 on 127.0.0.1 only, to client certificates of the demo CA only', () => {
    const server = options.kubeletServer;
    assert.equal(server.address, '127.0.0.1');
    assert.equal(server.port, 10250);
    assert.equal(server.anonymousAuth, false);
    assert.equal(server.clientCAFile, '/tmp/demo/pki/ca.crt');
    // No API server to ask in standalone mode: no TokenReview, and AlwaysAllow for the certificate holders, as upstream's standalone guide.
    assert.equal(server.webhookAuthentication, false);
    assert.equal(server.authorizationMode, 'AlwaysAllow');
    assert.equal(server.healthzPort, 0);
    assert.equal(options.readOnlyPort, 0, 'no unauthenticated read-only port');
    assert.equal(options.configFile, '/tmp/demo/kubelet-config.yaml');
  });

  test('uses no deprecated flag and no setting shardlet would warn about', () => {
    assert.deepEqual(options.startupNotices, { deprecations: [], decodeWarnings: [], notActedOn: [], clusterWarnings: [], featureGateWarnings: [] });
  });
});

describe('npm start', () => {
  let demo: ChildProcess;
  let port: number;
  let stdout = '';
  let stderr = '';

  before(async () => {
    port = await freePort();
    demo = spawn(process.execPath, [join(PACKAGE_ROOT, 'dist/src/tools/start-demo.js')], {
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
      env: { ...process.env, SHARDLET_DEMO_PORT: String(port) },
    });
    demo.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    demo.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  });

  after(async () => {
    await signalGroup(demo, 'SIGTERM');
    const workDir = /manifests in (\S+)\/manifests/.exec(stderr)?.[1];
    if (workDir) rmSync(workDir, { recursive: true, force: true });
  });

  /** The demo's curl line: the files a user passes to reach /pods. */
  function curlFiles(): { cacert: string; cert: string; key: string } {
    const match = /curl --cacert (\S+) --cert (\S+) --key (\S+) https:\/\//.exec(stderr);
    assert.ok(match, `the demo prints how to reach /pods: ${stderr}`);
    return { cacert: match[1]!, cert: match[2]!, key: match[3]! };
  }

  function getPods(host: string, withCertificate: boolean): Promise<number> {
    const files = curlFiles();
    const credentials = withCertificate ? { cert: readFileSync(files.cert), key: readFileSync(files.key) } : {};
    return new Promise((resolve, reject) => {
      https
        .get({ host, port, path: '/pods', ca: readFileSync(files.cacert), servername: 'localhost', ...credentials }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        })
        .on('error', reject);
    });
  }

  test('shows the example pods Running', async () => {
    await waitUntil(
      async () => {
        if (demo.exitCode !== null) throw new Error(`the demo exited with ${demo.exitCode}: ${stderr.slice(-2_000)}`);
        const lines = stderr.split('\n').filter((line) => line.startsWith('demo: 3 pods:'));
        return lines.some((line) => (line.match(/=Running/g) ?? []).length === 3);
      },
      DEMO_TIMEOUT_MS,
      'the demo reporting its 3 pods Running',
    );
  });

  test('logs no deprecation and no warning at all', () => {
    assert.doesNotMatch(`${stdout}\n${stderr}`, /deprecat/i);
    const warnings = stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { level: number; msg: string })
      .filter((entry) => entry.level >= 40);
    assert.deepEqual(warnings, []);
  });

  test('the kubelet API answers the demo\'s client certificate, refuses a request without one', async () => {
    assert.equal(await getPods(DEMO_API_ADDRESS, true), 200);
    assert.equal(await getPods(DEMO_API_ADDRESS, false), 401);
  });

  test('the kubelet API is not reachable on the machine\'s other addresses', async (t) => {
    const external = Object.values(networkInterfaces())
      .flat()
      .find((address) => address && address.family === 'IPv4' && !address.internal);
    if (!external) return t.skip('no non-loopback IPv4 address on this machine');
    await assert.rejects(getPods(external.address, true), { code: 'ECONNREFUSED' });
  });
});
