// shardlet swapped into real nodes' kubelet units: the command lines and config
// files kubeadm (1.34 and 1.36), kind, OpenShift and k3s generate (our equivalents, in
// test/fixtures/real-nodes/), started as they are, with paths moved into a
// temporary root, the CRI socket at the simulated runtime and the kubeconfig at
// the test API server. Each must start, register its Node, and name the settings
// it does not act on yet in its one start-up warning.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { startSimRuntime, type SimRuntime } from '../../src/simruntime/server.js';
import { startTestApiServer, type TestApiServer } from '../../src/testapiserver/server.js';
import { kubeletServerPortArgs, PACKAGE_ROOT, signalGroup, spawnShardlet, waitUntil, type ShardletChild } from '../helpers/kubelet-process.js';
import { flagValue, prepareRealNode, type RealNode } from './real-node-fixture.js';
import { testNoRefusals } from '../helpers/no-refusals.js';

const run = promisify(execFile);
const FIXTURES = join(PACKAGE_ROOT, 'test/fixtures/real-nodes');
const TIMEOUT_MS = 60_000;
const NOT_ACTED_ON = 'Settings accepted but not acted on yet by shardlet';
const BOOTSTRAP_TOKEN = 'abcdef.0123456789abcdef';

interface Case {
  fixture: string;
  /** Settings the start-up warning must name. */
  notActedOn: string[];
  /** Settings it must not name: shardlet acts on them. */
  actedOn: string[];
  labels?: Record<string, string>;
  /** Other warnings the start-up must log, once each. */
  warnings?: RegExp[];
  /**
   * The API server this distribution's kubelet needs: OpenShift's nodes label
   * themselves node-role.kubernetes.io/worker, which upstream's NodeRestriction
   * refuses (OpenShift's own API server allows it), so that case runs without it.
   */
  nodeRestriction?: false;
}

const CASES: Case[] = [
  {
    fixture: 'kubeadm',
    notActedOn: ['--pod-infra-container-image'],
    actedOn: ['staticPodPath', 'clusterDNS', '--node-ip', '--kubeconfig', '--config', 'resolvConf', '--bootstrap-kubeconfig', 'rotateCertificates', 'cgroupDriver', 'authentication', 'authorization', 'healthzPort'],
    warnings: [/^Flag --pod-infra-container-image has been deprecated, will be removed in 1\.35/],
  },
  {
    // A node written for 1.36: gates new in 1.35 and 1.36 in the file and on the command line, GA ones
    // set to their locked value, and fields of the 1.33-1.36 KubeletConfiguration.
    fixture: 'kubeadm-1.36',
    notActedOn: ['featureGates', '--feature-gates', 'imagePullCredentialsVerificationPolicy', 'memoryReservationPolicy', 'userNamespaces', 'crashLoopBackOff'],
    actedOn: ['containerRuntimeEndpoint', 'staticPodPath', 'clusterDNS', '--node-ip', 'cgroupDriver', 'authentication'],
    warnings: [
      /^Setting GA feature gate UserNamespacesSupport=true\. It will be removed in a future release\.$/,
      /^Setting GA feature gate PodObservedGenerationTracking=true\. It will be removed in a future release\.$/,
      /^Flag --feature-gates has been deprecated, This parameter should be set via the config file/,
    ],
  },
  {
    fixture: 'kind',
    notActedOn: ['--runtime-cgroups', 'failSwapOn'],
    actedOn: ['evictionHard', '--provider-id', 'metadata', 'staticPodPath', 'cgroupRoot', 'imageGCHighThresholdPercent'],
    warnings: [/using lenient decoding as strict decoding failed: strict decoding error: unknown field "metadata"/],
  },
  {
    fixture: 'openshift',
    notActedOn: ['--volume-plugin-dir', '--cloud-provider', 'featureGates'],
    actedOn: ['--minimum-container-ttl-duration', 'maxPods', 'podPidsLimit', '--system-reserved', '--node-labels', '--hostname-override', 'serverTLSBootstrap', 'tlsCipherSuites', 'tlsMinVersion', 'authentication'],
    labels: { 'node-role.kubernetes.io/worker': '', 'node.openshift.io/os_id': 'rhcos' },
    warnings: [
      /^Flag --minimum-container-ttl-duration has been deprecated, Use --eviction-hard or --eviction-soft instead/,
      /^--node-labels node-role\.kubernetes\.io\/worker: OpenShift's NodeRestriction lets a node set these on itself/,
    ],
    nodeRestriction: false,
  },
  {
    fixture: 'k3s',
    notActedOn: ['--fail-swap-on'],
    actedOn: ['--allowed-unsafe-sysctls', '--eviction-hard', '--eviction-minimum-reclaim', '--config-dir', '--cluster-dns', 'staticPodPath', 'readOnlyPort', '--anonymous-auth', '--authorization-mode', '--tls-cert-file', '--client-ca-file', 'authentication', 'tlsCertFile'],
    warnings: [/^Flag --eviction-hard has been deprecated, This parameter should be set via the config file/],
  },
];

let workDir: string;
let sim: SimRuntime;
/** The API server and admin kubeconfig of the case under way. */
let api: TestApiServer;
let adminKubeconfig: string;
const servers = new Map<boolean, { api: TestApiServer; adminKubeconfig: string }>();

before(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'shardlet-real-nodes-'));
  sim = await startSimRuntime({ socketPath: join(workDir, 'sim.sock') });
  for (const nodeRestriction of [true, false]) {
    const server = await startTestApiServer({ enforce: { nodeRestriction } });
    server.addToken(BOOTSTRAP_TOKEN, 'system:bootstrap:abcdef', ['system:bootstrappers']);
    servers.set(nodeRestriction, { api: server, adminKubeconfig: await server.writeKubeconfig(join(workDir, `admin-${nodeRestriction}.kubeconfig`), { user: 'admin' }) });
  }
});

after(async () => {
  for (const server of servers.values()) await server.api.stop();
  await sim?.close();
  rmSync(workDir, { recursive: true, force: true });
});

describe('real nodes\' kubelet command lines start shardlet', () => {
  for (const testCase of CASES) {
    test(`${testCase.fixture}: starts, registers its Node, and warns once about the settings it does not act on`, async () => {
      ({ api, adminKubeconfig } = servers.get(testCase.nodeRestriction ?? true)!);
      const node = prepareRealNode(join(FIXTURES, testCase.fixture), join(workDir, testCase.fixture), sim.endpoint);
      const nodeName = (flagValue(node.args, 'hostname-override') ?? hostname()).toLowerCase();
      await provideFiles(node, nodeName);
      const kubelet = await startShardlet(node);
      try {
        const registered = await waitUntil(() => nodeObject(nodeName, kubelet), TIMEOUT_MS, `Node ${nodeName} registered`);
        assert.match(registered.status.nodeInfo.kubeletVersion, /^v1\.36\.5-shardlet\.\d+\.\d+\.\d+/);
        for (const [key, value] of Object.entries(testCase.labels ?? {})) assert.equal(registered.metadata.labels[key], value, `label ${key}`);
        const warnings = kubelet.logs.filter((line) => line.level === 40).map((line) => String(line.msg));
        const notActedOnLines = kubelet.logs.filter((line) => String(line.msg).startsWith(NOT_ACTED_ON));
        assert.equal(notActedOnLines.length, 1, 'one start-up warning lists the settings not acted on');
        const settings = notActedOnLines[0]!.settings as string[];
        for (const setting of testCase.notActedOn) assert.ok(settings.includes(setting), `the warning names ${setting}: ${settings.join(', ')}`);
        for (const setting of testCase.actedOn) assert.ok(!settings.includes(setting), `the warning does not name ${setting}`);
        for (const pattern of testCase.warnings ?? []) {
          assert.equal(warnings.filter((message) => pattern.test(message)).length, 1, `one warning matches ${pattern}`);
        }
      } finally {
        await kubelet.stop();
        // kubeadm's and kind's nodes both take the host name: the next one must register anew.
        await run('kubectl', ['--kubeconfig', adminKubeconfig, 'delete', 'node', nodeName, '--ignore-not-found'], { timeout: 30_000 });
      }
    });
  }
});

/** The files the command line names that a real node would have: the kubeconfigs and the CA files. */
async function provideFiles(node: RealNode, nodeName: string): Promise<void> {
  const kubeconfig = flagValue(node.args, 'kubeconfig')!;
  mkdirSync(dirname(kubeconfig), { recursive: true });
  await api.writeKubeconfig(kubeconfig, { user: 'kubelet', nodeName });
  const bootstrap = flagValue(node.args, 'bootstrap-kubeconfig');
  // A bootstrap kubeconfig alongside a usable --kubeconfig: the kubeconfig wins, as upstream.
  if (bootstrap) await api.writeKubeconfig(bootstrap, { user: 'kubelet', nodeName, token: BOOTSTRAP_TOKEN });
  // Serving certificate files must be readable at start-up, as upstream (k3s names its own).
  const serving = await api.clientCredentials({ user: 'kubelet', nodeName });
  for (const [flag, pem] of [['tls-cert-file', serving.certPem], ['tls-private-key-file', serving.keyPem]] as const) {
    const path = flagValue(node.args, flag);
    if (path) writeFileSync(path, pem);
  }
  for (const caFile of ['etc/kubernetes/pki/ca.crt', 'etc/kubernetes/kubelet-ca.crt', 'var/lib/rancher/k3s/agent/client-ca.crt']) {
    mkdirSync(dirname(node.inRoot(caFile)), { recursive: true });
    copyFileSync(api.caFile, node.inRoot(caFile));
  }
}

interface RunningShardlet extends ShardletChild {
  stop(): Promise<void>;
}

/**
 * The real command line; only --root-dir is added when the unit leaves it at
 * /var/lib/kubelet, and a free --port and --healthz-port=0 (a test must not bind
 * 10250 or 10248).
 */
async function startShardlet(node: RealNode): Promise<RunningShardlet> {
  const rootDir = flagValue(node.args, 'root-dir') === undefined ? [`--root-dir=${node.inRoot('var/lib/kubelet')}`] : [];
  const shardlet = spawnShardlet([...node.args, ...rootDir, ...(await kubeletServerPortArgs([]))]);
  return { ...shardlet, stop: () => signalGroup(shardlet.child, 'SIGTERM') };
}

interface NodeJson {
  metadata: { labels: Record<string, string> };
  status: { nodeInfo: { kubeletVersion: string } };
}

async function nodeObject(name: string, kubelet: RunningShardlet): Promise<NodeJson | false> {
  if (kubelet.child.exitCode !== null) throw new Error(`shardlet exited with code ${kubelet.child.exitCode}: ${kubelet.stderr().slice(-2_000)}`);
  try {
    const { stdout } = await run('kubectl', ['--kubeconfig', adminKubeconfig, 'get', 'node', name, '-o', 'json'], { timeout: 30_000 });
    return JSON.parse(stdout) as NodeJson;
  } catch {
    return false;
  }
}

testNoRefusals(() => [...servers.values()].map((server) => server.api));
