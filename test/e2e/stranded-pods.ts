// What a kubelet that died between CreateContainer and StartContainer leaves in the
// runtime: a READY sandbox and containers in CREATED state, carrying upstream's pod
// and container labels and annotations (so a restarted shardlet adopts them). Made
// here through the CRI itself, on containerd or the simulated runtime.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { CriClient } from '../../src/shared/cri/client.js';
import { CONTAINER_TYPE_REGULAR } from '../../src/shared/labels.js';
import type { Container, Pod } from '../../src/shared/types.js';
import { newContainerAnnotations, newContainerLabels, newPodLabels } from '../../src/workers/kuberuntime/labels.js';

export interface StrandedPod {
  uid: string;
  sandboxId: string;
  containerIds: string[];
}

/**
 * A sandbox for `pod` (metadata name, namespace and uid as shardlet's static pod
 * has them) and one CREATED, never started, container per spec container.
 */
export async function strandPod(cri: CriClient, pod: Pod, podLogsDir: string): Promise<StrandedPod> {
  const meta = pod.metadata!;
  const logDirectory = join(podLogsDir, `${meta.namespace}_${meta.name}_${meta.uid}`);
  mkdirSync(logDirectory, { recursive: true });
  const sandboxConfig = {
    metadata: { name: meta.name!, uid: meta.uid!, namespace: meta.namespace!, attempt: 0 },
    hostname: meta.name!,
    log_directory: logDirectory,
    labels: newPodLabels(pod),
    annotations: {},
    linux: {},
  };
  const sandboxId = (await cri.runPodSandbox({ config: sandboxConfig, runtime_handler: '' })).pod_sandbox_id;
  const containerIds: string[] = [];
  for (const container of pod.spec!.containers as Container[]) {
    await cri.pullImage({ image: { image: container.image! } }).catch(() => undefined);
    const reply = await cri.createContainer({
      pod_sandbox_id: sandboxId,
      sandbox_config: sandboxConfig,
      config: {
        metadata: { name: container.name, attempt: 0 },
        image: { image: container.image! },
        command: container.command ?? [],
        log_path: `${container.name}/0.log`,
        labels: newContainerLabels(pod, container, CONTAINER_TYPE_REGULAR),
        annotations: newContainerAnnotations(pod, container, 0),
      },
    });
    containerIds.push(reply.container_id);
  }
  return { uid: meta.uid!, sandboxId, containerIds };
}

/** Sandboxes and containers the runtime holds for a pod UID, with their states. */
export async function runtimeObjectsOf(cri: CriClient, uid: string): Promise<{ sandboxes: string[]; containers: string[] }> {
  const selector = { label_selector: { 'io.kubernetes.pod.uid': uid } };
  const [sandboxes, containers] = await Promise.all([cri.listPodSandbox({ filter: selector }), cri.listContainers({ filter: selector })]);
  return {
    sandboxes: sandboxes.items.map((item) => `${item.id}:${item.state}`),
    containers: containers.containers.map((item) => `${item.id}:${item.state}`),
  };
}

/** Removes whatever the runtime still holds for a pod UID (a test's clean-up when shardlet did not). */
export async function removeRuntimePod(cri: CriClient, uid: string): Promise<void> {
  const selector = { label_selector: { 'io.kubernetes.pod.uid': uid } };
  for (const container of (await cri.listContainers({ filter: selector })).containers) await cri.removeContainer({ container_id: container.id });
  for (const sandbox of (await cri.listPodSandbox({ filter: selector })).items) await cri.removePodSandbox({ pod_sandbox_id: sandbox.id });
}
