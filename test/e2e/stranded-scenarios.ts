// A kubelet that died between CreateContainer and StartContainer leaves containers in
// CREATED state. containerd 1.6 leaves such a container as it is on StopContainer,
// so a kubelet that waits for it to stop waits forever. Upstream treats a container
// that never started as stopped and removes it. These scenarios leave such pods in
// the runtime through the CRI, start shardlet, and check that each one is adopted,
// stopped and removed: with its manifest removed, as an orphan no source wants, and
// as the predecessor of an edited static pod of the same name. The pod log
// directories (podLogsDir) go with the pods.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { CriClient } from '../../src/shared/cri/client.js';
import type { Pod } from '../../src/shared/types.js';
import { findPod, isRunningAndReady, startKubelet, waitUntil, type KubeletProcess } from '../helpers/kubelet-process.js';
import { manifest, type RuntimeUnderTest } from './scenarios.js';
import { removeRuntimePod, runtimeObjectsOf, strandPod } from './stranded-pods.js';

const NODE = 'test-node';
const GRACE_SECONDS = 2;
/** Functional bound, not a speed target: removed once the grace period ran out, not never. */
const GONE_WITHIN_MS = GRACE_SECONDS * 1000 + 15_000;
const POD_TIMEOUT_MS = 60_000;

const ADOPTED_UID = '5a1f0c2e-0d7e-4b8a-9e61-3c2b1a000001';
const ORPHAN_UID = '5a1f0c2e-0d7e-4b8a-9e61-3c2b1a000002';
const PREDECESSOR_UID = '5a1f0c2e-0d7e-4b8a-9e61-3c2b1a000003';

function podFor(name: string, uid: string, image: string): Pod {
  return {
    metadata: { name: `${name}-${NODE}`, namespace: 'default', uid },
    spec: {
      terminationGracePeriodSeconds: GRACE_SECONDS,
      containers: [{ name: 'main', image, command: ['sh', '-c', 'sleep 3600'] }],
    },
  };
}

export function strandedScenarios(getRuntime: () => Promise<RuntimeUnderTest>): void {
  let runtime: RuntimeUnderTest;
  let kubelet: KubeletProcess;
  let cri: CriClient;
  let podLogsDir: string;
  const workDir = mkdtempSync(join(tmpdir(), 'shardlet-stranded-'));

  const logDirOf = (pod: Pod) => join(podLogsDir, `${pod.metadata!.namespace}_${pod.metadata!.name}_${pod.metadata!.uid}`);
  const gone = async (uid: string) => {
    const objects = await runtimeObjectsOf(cri, uid);
    return objects.sandboxes.length === 0 && objects.containers.length === 0;
  };
  const waitGone = (uid: string, what: string) => waitUntil(() => gone(uid), GONE_WITHIN_MS, `${what}: no sandbox and no container left`);
  const writeManifest = (file: string, text: string) => writeFileSync(join(workDir, 'manifests', file), text);

  before(async () => {
    runtime = await getRuntime();
    cri = new CriClient(runtime.endpoint, { timeoutMs: 30_000 });
    podLogsDir = join(workDir, 'pod-logs');
    mkdirSync(join(workDir, 'manifests'), { recursive: true });
    const configPath = join(workDir, 'kubelet-config.yaml');
    // Standalone (no kubeconfig): the webhook authn/authz defaults of a config file need a client, so off, as upstream's standalone guide sets them.
    writeFileSync(
      configPath,
      `apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\npodLogsDir: ${podLogsDir}\nauthentication: {webhook: {enabled: false}}\nauthorization: {mode: AlwaysAllow}\n`,
    );
    // The adopted pod's manifest pins its UID, so it names the pod the stranded objects belong to.
    const adopted = podFor('adopted', ADOPTED_UID, runtime.image);
    writeManifest('adopted.yaml', manifest('adopted', adopted.spec, { uid: ADOPTED_UID }));
    // The predecessor's manifest was edited while the kubelet was down: the new one has a new UID.
    writeManifest('edited.yaml', manifest('edited', { ...podFor('edited', '', runtime.image).spec, containers: [{ name: 'main', image: runtime.image, command: ['sh', '-c', 'sleep 7200'] }] }));
    for (const pod of [adopted, podFor('orphan', ORPHAN_UID, runtime.image), podFor('edited', PREDECESSOR_UID, runtime.image)]) {
      await strandPod(cri, pod, podLogsDir);
    }
    kubelet = await startKubelet({ runtimeEndpoint: runtime.endpoint, workers: 2, workDir, extraArgs: [`--config=${configPath}`, '--sync-frequency=10m'] });
  });

  after(async () => {
    for (const file of ['adopted.yaml', 'edited.yaml', 'plain.yaml']) rmSync(join(workDir, 'manifests', file), { force: true });
    await waitUntil(async () => (await kubelet.pods()).length === 0, 60_000, 'pods removed').catch(() => undefined);
    for (const uid of [ADOPTED_UID, ORPHAN_UID, PREDECESSOR_UID]) await waitGone(uid, uid).catch(() => undefined);
    await kubelet.stop();
    // Leave the runtime as it was found even when shardlet did not clean up.
    for (const uid of [ADOPTED_UID, ORPHAN_UID, PREDECESSOR_UID]) await removeRuntimePod(cri, uid);
    cri.close();
  });

  test('an orphan whose container never started is removed, with its log directory', async () => {
    await waitGone(ORPHAN_UID, 'orphan');
    const orphan = podFor('orphan', ORPHAN_UID, runtime.image);
    await waitUntil(async () => !existsSync(logDirOf(orphan)), 10_000, 'the orphan log directory removed');
  });

  test('an edited static pod starts once its predecessor, whose container never started, is gone', async () => {
    const edited = await waitUntil(async () => {
      const pod = findPod(await kubelet.pods(), 'edited');
      return isRunningAndReady(pod) ? pod : undefined;
    }, POD_TIMEOUT_MS, 'the edited pod Running');
    assert.notEqual(edited.metadata!.uid, PREDECESSOR_UID);
    await waitGone(PREDECESSOR_UID, 'the predecessor');
  });

  test('a pod adopted with a never-started container runs, and is removed within its grace period with its log directory', async () => {
    await waitUntil(async () => isRunningAndReady(findPod(await kubelet.pods(), 'adopted')), POD_TIMEOUT_MS, 'the adopted pod Running');
    const created = (await runtimeObjectsOf(cri, ADOPTED_UID)).containers.filter((entry) => entry.endsWith('CONTAINER_CREATED'));
    assert.deepEqual(created, [], 'the never-started container was replaced and removed');
    rmSync(join(workDir, 'manifests', 'adopted.yaml'));
    await waitGone(ADOPTED_UID, 'the adopted pod');
    await waitUntil(async () => !existsSync(logDirOf(podFor('adopted', ADOPTED_UID, runtime.image))), 10_000, 'its log directory removed');
  });

  test('a pod shardlet started leaves no log directory once its manifest is removed', async () => {
    writeManifest('plain.yaml', manifest('plain', { terminationGracePeriodSeconds: GRACE_SECONDS, containers: [{ name: 'main', image: runtime.image, command: ['sh', '-c', 'sleep 3600'] }] }));
    const pod = await waitUntil(async () => {
      const found = findPod(await kubelet.pods(), 'plain');
      return isRunningAndReady(found) ? found : undefined;
    }, POD_TIMEOUT_MS, 'plain Running');
    assert.ok(existsSync(logDirOf(pod)), 'the pod has a log directory while it runs');
    rmSync(join(workDir, 'manifests', 'plain.yaml'));
    await waitGone(pod.metadata!.uid!, 'plain');
    await waitUntil(async () => !existsSync(logDirOf(pod)), 10_000, 'its log directory removed');
  });
}
