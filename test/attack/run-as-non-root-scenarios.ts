// Attack: a pod that says runAsNonRoot but runs an image whose user is root (or
// only a name) and leaves runAsUser unset, hoping the kubelet checks only the
// spec. Upstream reads the image's user from ImageStatus and refuses the container
// with CreateContainerConfigError before CreateContainer. Written once, run against
// the simulated runtime and against containerd: a real shardlet process, static
// pods, status read from /pods and the runtime read over the CRI.
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { CriClient } from '../../src/shared/cri/client.js';
import type { Container, Pod } from '../../src/shared/types.js';
import { findPod, isRunningAndReady, startKubelet, waitUntil, type KubeletProcess } from '../helpers/kubelet-process.js';
import { manifest } from '../e2e/scenarios.js';

export interface NonRootRuntime {
  name: string;
  endpoint: string;
  /** An image that names no user, so runs as root (busybox). */
  rootImage: string;
  /** An image whose user is a non-root uid, and that uid. */
  nonRootImage: { image: string; uid: number };
  /** An image that names its user only by name (the simulated runtime has one). */
  namedUserImage?: { image: string; username: string };
  /** Whether containers are real processes, so `id -u` in them can be asked over ExecSync. */
  realProcesses: boolean;
}

const POD_TIMEOUT_MS = 90_000;
const FILES = ['root-image.yaml', 'pod-level.yaml', 'named-user.yaml', 'non-root-image.yaml', 'explicit-user.yaml'];

/** The waiting state of the pod's container (or init container) `name`. */
function waitingOf(pod: Pod | undefined, name: string): { reason?: string; message?: string } | undefined {
  const statuses = [...(pod?.status?.initContainerStatuses ?? []), ...(pod?.status?.containerStatuses ?? [])];
  return statuses.find((status) => status.name === name)?.state?.waiting;
}

export function runAsNonRootScenarios(getRuntime: () => Promise<NonRootRuntime>): void {
  let runtime: NonRootRuntime;
  let kubelet: KubeletProcess;
  let cri: CriClient;

  const write = (file: string, text: string) => writeFileSync(join(kubelet.manifestDir, file), text);
  const container = (image: string, extra: Partial<Container> = {}): Container => ({
    name: 'app',
    image,
    imagePullPolicy: 'IfNotPresent',
    command: ['sh', '-c', 'sleep 3600'],
    ...extra,
  });
  const refusedWith = (prefix: string, name: string, message: RegExp) =>
    waitUntil(async () => {
      const pod = findPod(await kubelet.pods(), prefix);
      const waiting = waitingOf(pod, name);
      return waiting?.reason === 'CreateContainerConfigError' && message.test(waiting.message ?? '') ? pod : false;
    }, POD_TIMEOUT_MS, `${prefix}: ${name} refused with CreateContainerConfigError ${message}`);
  const runtimeContainers = async (uid: string) =>
    (await cri.listContainers({ filter: { label_selector: { 'io.kubernetes.pod.uid': uid } } })).containers;
  const running = (prefix: string) =>
    waitUntil(async () => {
      const pod = findPod(await kubelet.pods(), prefix);
      return isRunningAndReady(pod) ? pod : false;
    }, POD_TIMEOUT_MS, `${prefix}: Running and Ready`);
  /** `id -u` in the pod's running app container, where containers are real processes. */
  const uidInside = async (pod: Pod): Promise<number | undefined> => {
    if (!runtime.realProcesses) return undefined;
    const [app] = (await runtimeContainers(pod.metadata!.uid!)).filter((c) => c.state === 'CONTAINER_RUNNING');
    const reply = await cri.execSync({ container_id: app!.id, cmd: ['id', '-u'], timeout: 10 });
    return Number(reply.stdout.toString().trim());
  };

  before(async () => {
    runtime = await getRuntime();
    kubelet = await startKubelet({ runtimeEndpoint: runtime.endpoint, workers: 2 });
    cri = new CriClient(runtime.endpoint, { timeoutMs: 30_000 });
  });

  after(async () => {
    for (const file of FILES) rmSync(join(kubelet.manifestDir, file), { force: true });
    await waitUntil(async () => (await kubelet.pods()).length === 0, 60_000, 'pods removed').catch(() => undefined);
    await waitUntil(
      async () => (await cri.listPodSandbox({})).items.every((sandbox) => !sandbox.metadata?.name.endsWith('-test-node')),
      30_000,
      'sandboxes removed',
    ).catch(() => undefined);
    await kubelet.stop();
    cri.close();
  });

  test('a root image under runAsNonRoot without runAsUser is refused before any container is created', async () => {
    write(
      'root-image.yaml',
      manifest('root-image', { terminationGracePeriodSeconds: 1, containers: [container(runtime.rootImage, { securityContext: { runAsNonRoot: true } })] }),
    );
    const pod = await refusedWith('root-image', 'app', /container has runAsNonRoot and image will run as root/);
    assert.notEqual(pod.status?.phase, 'Running');
    assert.deepEqual(await runtimeContainers(pod.metadata!.uid!), [], 'no container reached the runtime');
    const events = kubelet.logs.filter((line) => line.msg === 'Event' && line.pod === 'default/root-image-test-node' && line.reason === 'Failed');
    assert.ok(events.some((event) => /^Error: .*image will run as root/.test(String(event.message))), 'a Failed event says why');
  });

  test("the pod's runAsNonRoot holds for its init containers too", async () => {
    write(
      'pod-level.yaml',
      manifest('pod-level', {
        terminationGracePeriodSeconds: 1,
        securityContext: { runAsNonRoot: true },
        initContainers: [container(runtime.rootImage, { name: 'setup', command: ['true'] })],
        containers: [container(runtime.nonRootImage.image)],
      }),
    );
    const pod = await refusedWith('pod-level', 'setup', /image will run as root/);
    assert.deepEqual(await runtimeContainers(pod.metadata!.uid!), [], 'neither the init container nor the app ran');
  });

  test('an image whose user is only a name cannot be shown to be non-root, and is refused', async (t) => {
    if (!runtime.namedUserImage) {
      t.skip(`${runtime.name} has no image with a named user`);
      return;
    }
    const { image, username } = runtime.namedUserImage;
    write('named-user.yaml', manifest('named-user', { terminationGracePeriodSeconds: 1, containers: [container(image, { securityContext: { runAsNonRoot: true } })] }));
    const pod = await refusedWith('named-user', 'app', new RegExp(`image has non-numeric user \\(${username}\\), cannot verify user is non-root`));
    assert.deepEqual(await runtimeContainers(pod.metadata!.uid!), []);
  });

  test('an image with a non-root uid runs under runAsNonRoot, as that uid', async () => {
    const { image, uid } = runtime.nonRootImage;
    write('non-root-image.yaml', manifest('non-root-image', { terminationGracePeriodSeconds: 1, containers: [container(image, { securityContext: { runAsNonRoot: true } })] }));
    const pod = await running('non-root-image');
    const inside = await uidInside(pod);
    if (inside !== undefined) assert.equal(inside, uid);
  });

  test('a root image runs under runAsNonRoot when runAsUser names a non-root user', async () => {
    write(
      'explicit-user.yaml',
      manifest('explicit-user', { terminationGracePeriodSeconds: 1, containers: [container(runtime.rootImage, { securityContext: { runAsNonRoot: true, runAsUser: 4242 } })] }),
    );
    const pod = await running('explicit-user');
    const inside = await uidInside(pod);
    if (inside !== undefined) assert.equal(inside, 4242);
  });
}
