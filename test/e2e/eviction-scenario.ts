// Node-pressure eviction in cluster mode, written once for each runtime (the
// simulated one reports modelled memory figures, containerd real ones): with
// evictionHard memory.available set just above what this host has free, the node
// shows MemoryPressure, the best-effort pod using more than it asked for is evicted
// first (Failed, reason Evicted), then the burstable one, and a new best-effort pod
// is refused at admission.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { stringify } from 'yaml';
import { startTestApiServer, type TestApiServer } from '../../src/testapiserver/server.js';
import type { Pod } from '../../src/shared/types.js';
import { startKubelet, waitUntil, type KubeletProcess } from '../helpers/kubelet-process.js';
import { testNoRefusals } from '../helpers/no-refusals.js';
import { kubectlOutput } from '../helpers/kubectl.js';

const NODE = 'pressure-node';
const TIMEOUT_MS = 60_000;

let workDir: string;
let api: TestApiServer;
let kubelet: KubeletProcess;
let adminKubeconfig: string;

async function kubectl(...args: string[]): Promise<string> {
  return kubectlOutput(adminKubeconfig, args);
}

const apiPod = async (name: string) => JSON.parse(await kubectl('get', 'pod', name, '-o', 'json')) as Pod;

/** What the eviction manager will read as memory.available: total less the working set (free plus inactive file pages). */
function hostMemoryAvailableMi(): number {
  const fields = new Map(readFileSync('/proc/meminfo', 'utf8').split('\n').map((line) => {
    const [key, value] = line.split(':');
    return [key, Number.parseInt(value ?? '0', 10)] as const;
  }));
  return Math.floor(((fields.get('MemFree') ?? 0) + (fields.get('Inactive(file)') ?? 0)) / 1024);
}

/** The pods the scenario makes, for runtimes that need them cleaned up. */
export const EVICTION_POD_NAMES = ['hog', 'modest', 'late'];

export interface EvictionRuntime {
  endpoint: string;
  image: string;
  /** The best-effort pod's command: it must use memory (the sim models 8Mi for any container). */
  hogCommand: string[];
  stop(): Promise<void>;
}

function podManifest(runtime: EvictionRuntime, name: string, command: string[], resources: Record<string, Record<string, string>>): string {
  return stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' }, spec: { containers: [{ name: 'main', image: runtime.image, command, resources }] } });
}

export function evictionScenario(startRuntime: () => Promise<EvictionRuntime>): void {
  let runtime: EvictionRuntime;

  before(async () => {
    workDir = mkdtempSync(join(tmpdir(), 'shardlet-eviction-'));
    runtime = await startRuntime();
    api = await startTestApiServer({ defaultNodeName: NODE });
    adminKubeconfig = await api.writeKubeconfig(join(workDir, 'admin.kubeconfig'), { user: 'admin' });
    const nodeKubeconfig = await api.writeKubeconfig(join(workDir, 'node.kubeconfig'), { user: 'kubelet', nodeName: NODE });
    // The pods are there before shardlet starts: admitted before the first eviction pass sees any pressure.
    writeFileSync(join(workDir, 'pods.yaml'), [
      podManifest(runtime, 'hog', runtime.hogCommand, {}),
      podManifest(runtime, 'modest', ['sleep', '3600'], { requests: { memory: '64Mi' }, limits: { memory: '128Mi' } }),
    ].join('---\n'));
    await kubectl('apply', '-f', join(workDir, 'pods.yaml'));
    const config = join(workDir, 'kubelet.yaml');
    const thresholdMi = hostMemoryAvailableMi() + 2048;
    writeFileSync(config, `apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nevictionHard:\n  memory.available: ${thresholdMi}Mi\nnodeStatusUpdateFrequency: 1s\n`);
    kubelet = await startKubelet({
      runtimeEndpoint: runtime.endpoint,
      workers: 1,
      nodeName: NODE,
      workDir,
      extraArgs: [`--kubeconfig=${nodeKubeconfig}`, '--config', config, '--eviction-monitoring-period=2s'],
    });
  });

  after(async () => {
    await kubelet?.stop();
    await api?.stop();
    await runtime?.stop();
  });

  test('under memory pressure the best-effort pod goes first, then the burstable one; the node shows MemoryPressure; a new best-effort pod is refused', async () => {
    const evictedInOrder = () => kubelet.logs.filter((line) => line.msg === 'Eviction manager: pod is evicted successfully').map((line) => line.pod);
    await waitUntil(async () => evictedInOrder().length >= 2, TIMEOUT_MS, 'two evictions');
    assert.deepEqual(evictedInOrder().slice(0, 2), ['default/hog', 'default/modest'], 'the pod above its requests first');

    const hog = await waitUntil(async () => {
      const current = await apiPod('hog');
      return current.status?.phase === 'Failed' ? current : false;
    }, TIMEOUT_MS, 'hog Failed in the API');
    assert.equal(hog.status?.reason, 'Evicted');
    assert.match(hog.status?.message ?? '', /^The node was low on resource: memory\. Threshold quantity: \d+Mi, available: .*\. Container main was using \d+(\.\d+)?[KMG]i, request is 0, has larger consumption of memory\. $/);
    assert.ok(hog.status?.conditions?.some((c) => c.type === 'DisruptionTarget' && c.reason === 'TerminationByKubelet'));

    await waitUntil(async () => {
      const node = JSON.parse(await kubectl('get', 'node', NODE, '-o', 'json')) as { status: { conditions: Array<{ type: string; status: string }> } };
      return node.status.conditions.some((c) => c.type === 'MemoryPressure' && c.status === 'True');
    }, TIMEOUT_MS, 'the node shows MemoryPressure');

    writeFileSync(join(workDir, 'late.yaml'), podManifest(runtime, 'late', ['sleep', '3600'], {}));
    await kubectl('apply', '-f', join(workDir, 'late.yaml'));
    const late = await waitUntil(async () => {
      const current = await apiPod('late');
      return current.status?.phase === 'Failed' ? current : false;
    }, TIMEOUT_MS, 'the new best-effort pod refused');
    assert.equal(late.status?.reason, 'Evicted');
    assert.equal(late.status?.message, 'The node had condition: [MemoryPressure]. ');
  });

  testNoRefusals(() => [api]);
}
