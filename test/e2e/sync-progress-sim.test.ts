// What a sync does reaches the API server while the sync still runs (issue 27,
// defects 1 and 2), read the way kubectl reads it, with shard threads and with
// --workers 0:
//   - `kubectl delete pod` of a container that ignores SIGTERM (20 s grace): the
//     Killing event is there while the container still runs, as upstream records
//     it before StopContainer;
//   - a slow image pull: the Pulling event is there while the pull runs;
//   - a restartPolicy Never pod whose container exited: the pod is Succeeded while
//     its sandbox is still READY (StopPodSandbox held by the simulated runtime, as a
//     loaded CRI-O holds it), so a Job's completion does not wait for the teardown.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { stringify } from 'yaml';
import { CriClient } from '../../src/shared/cri/client.js';
import type { Pod } from '../../src/shared/types.js';
import { startSimRuntime, type SimRuntime } from '../../src/simruntime/server.js';
import { startTestApiServer, type TestApiServer } from '../../src/testapiserver/server.js';
import { startKubelet, waitUntil, type KubeletProcess } from '../helpers/kubelet-process.js';
import { testNoRefusals } from '../helpers/no-refusals.js';
import { kubectlOutput } from '../helpers/kubectl.js';

const NODE = 'progress-node';
const TIMEOUT_MS = 90_000;
const IMAGE = 'busybox:1.35';
/** Pulled by one pod only, so the held pull is that pod's. */
const SLOW_IMAGE = 'busybox:1.36';
/** How long the runtime holds the call under test; the assertions are made while it is held. */
const HELD_MS = 15_000;
const GRACE_SECONDS = 20;

interface ApiEvent {
  reason: string;
  involvedObject: { name: string; uid: string };
}

for (const workers of [2, 0]) {
  describe(`--workers ${workers}`, () => {
    let workDir: string;
    let sim: SimRuntime;
    let cri: CriClient;
    let api: TestApiServer;
    let kubelet: KubeletProcess;
    let adminKubeconfig: string;

    async function kubectl(...args: string[]): Promise<string> {
      return kubectlOutput(adminKubeconfig, args);
    }

    async function apply(name: string, spec: Record<string, unknown>): Promise<string> {
      const file = join(workDir, `${name}.yaml`);
      writeFileSync(file, stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' }, spec }));
      await kubectl('apply', '-f', file);
      return apiPod(name).then((pod) => pod.metadata!.uid!);
    }

    const apiPod = async (name: string) => JSON.parse(await kubectl('get', 'pod', name, '-o', 'json')) as Pod;

    async function eventReasons(uid: string): Promise<string[]> {
      const events = JSON.parse(await kubectl('get', 'events', '-n', 'default', '-o', 'json')).items as ApiEvent[];
      return events.filter((event) => event.involvedObject.uid === uid).map((event) => event.reason);
    }

    const label = (uid: string) => ({ label_selector: { 'io.kubernetes.pod.uid': uid } });
    const containerStates = async (uid: string) => (await cri.listContainers({ filter: label(uid) })).containers.map((c) => c.state);
    const sandboxStates = async (uid: string) => (await cri.listPodSandbox({ filter: label(uid) })).items.map((s) => s.state);

    before(async () => {
      workDir = mkdtempSync(join(tmpdir(), 'shardlet-progress-'));
      sim = await startSimRuntime({ socketPath: join(workDir, 'sim.sock') });
      cri = new CriClient(sim.endpoint, { timeoutMs: 30_000 });
      api = await startTestApiServer({ defaultNodeName: NODE });
      adminKubeconfig = await api.writeKubeconfig(join(workDir, 'admin.kubeconfig'), { user: 'admin' });
      const nodeKubeconfig = await api.writeKubeconfig(join(workDir, 'node.kubeconfig'), { user: 'kubelet', nodeName: NODE });
      kubelet = await startKubelet({ runtimeEndpoint: sim.endpoint, workers, nodeName: NODE, workDir, extraArgs: [`--kubeconfig=${nodeKubeconfig}`] });
    });

    after(async () => {
      if (kubelet) {
        await kubectl('delete', 'pods', '--all', '--wait=false').catch(() => undefined);
        await waitUntil(async () => (await cri.listPodSandbox({})).items.length === 0, TIMEOUT_MS, 'pods removed').catch(() => undefined);
      }
      await kubelet?.stop();
      await api?.stop();
      cri?.close();
      await sim?.close();
      rmSync(workDir, { recursive: true, force: true });
    });

    test('a slow pull: the Pulling event is in the API server while the pull still runs', async () => {
      sim.injectFault({ method: 'PullImage', times: 1, code: GrpcStatus.OK, delayMs: HELD_MS });
      const uid = await apply('slow-pull', { containers: [{ name: 'main', image: SLOW_IMAGE, imagePullPolicy: 'IfNotPresent', command: ['sleep', '3600'] }] });
      await waitUntil(async () => (await eventReasons(uid)).includes('Pulling'), TIMEOUT_MS, 'the Pulling event');
      assert.deepEqual(await containerStates(uid), [], 'the pull still runs: no container yet');
      await waitUntil(async () => (await apiPod('slow-pull')).status?.phase === 'Running', TIMEOUT_MS, 'the pod Running');
      const reasons = await waitUntil(async () => {
        const seen = await eventReasons(uid);
        return seen.includes('Started') ? seen : false;
      }, TIMEOUT_MS, 'the Started event');
      for (const reason of ['Pulling', 'Pulled', 'Created', 'Started']) assert.equal(reasons.filter((r) => r === reason).length, 1, `one ${reason} event: ${reasons}`);
    });

    test(`kubectl delete pod (${GRACE_SECONDS} s grace, SIGTERM ignored): the Killing event is in the API server while the container still runs`, async () => {
      const uid = await apply('stubborn', {
        terminationGracePeriodSeconds: GRACE_SECONDS,
        containers: [{ name: 'main', image: IMAGE, command: ['sh', '-c', "trap '' TERM; sleep 3600"] }],
      });
      await waitUntil(async () => (await apiPod('stubborn')).status?.phase === 'Running', TIMEOUT_MS, 'the pod Running');
      await kubectl('delete', 'pod', 'stubborn', '--wait=false');
      await waitUntil(async () => (await eventReasons(uid)).includes('Killing'), TIMEOUT_MS, 'the Killing event');
      assert.deepEqual(await containerStates(uid), ['CONTAINER_RUNNING'], 'the container is still within its grace period');
      await waitUntil(async () => kubectl('get', 'pod', 'stubborn').then(() => false, () => true), TIMEOUT_MS, 'the pod gone from the API server');
      assert.deepEqual((await eventReasons(uid)).filter((reason) => reason === 'Killing'), ['Killing'], 'one Killing event');
    });

    test('a finished restartPolicy Never pod is Succeeded in the API server while its sandbox is still READY', async () => {
      const uid = await apply('job', { restartPolicy: 'Never', containers: [{ name: 'main', image: IMAGE, command: ['sh', '-c', 'sleep 3; exit 0'] }] });
      sim.injectFault({ method: 'StopPodSandbox', podUid: uid, times: 1, code: GrpcStatus.OK, delayMs: HELD_MS });
      await waitUntil(async () => (await apiPod('job')).status?.phase === 'Succeeded', TIMEOUT_MS, 'the pod Succeeded');
      assert.deepEqual(await sandboxStates(uid), ['SANDBOX_READY'], 'the status did not wait for StopPodSandbox');
      await waitUntil(async () => (await sandboxStates(uid)).join() === 'SANDBOX_NOTREADY', TIMEOUT_MS, 'the sandbox stopped afterwards');
    });

    testNoRefusals(() => [api]);
  });
}
