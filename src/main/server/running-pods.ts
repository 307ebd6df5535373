// /runningpods/: what the runtime is running, as upstream's GetPods(all=false) and
// Pod.ToAPIPod give it: ready sandboxes and running containers grouped by the pod
// UID label into a PodList whose pods carry only name, namespace, UID and each
// container's name and image. Asked through the kubelet API's own CRI channel.
import type { CriClient } from '../../shared/cri/client.js';
import { ContainerState, PodSandboxState } from '../../shared/cri/types.js';
import { CONTAINER_NAME_LABEL, POD_NAME_LABEL, POD_NAMESPACE_LABEL, POD_UID_LABEL } from '../../shared/labels.js';
import type { Pod } from '../../shared/types.js';

export async function runningPods(cri: CriClient): Promise<Pod[]> {
  const [sandboxes, containers] = await Promise.all([
    cri.listPodSandbox({ filter: { state: { state: PodSandboxState.SANDBOX_READY } } }),
    cri.listContainers({ filter: { state: { state: ContainerState.CONTAINER_RUNNING } } }),
  ]);
  const podsByUid = new Map<string, Pod & { spec: { containers: Array<{ name: string; image: string }> } }>();
  const podFor = (labels: Record<string, string>) => {
    const uid = labels[POD_UID_LABEL] ?? '';
    let pod = podsByUid.get(uid);
    if (!pod) {
      pod = { metadata: { name: labels[POD_NAME_LABEL] ?? '', namespace: labels[POD_NAMESPACE_LABEL] ?? '', uid }, spec: { containers: [] } };
      podsByUid.set(uid, pod);
    }
    return pod;
  };
  for (const sandbox of sandboxes.items) podFor(sandbox.labels);
  for (const container of containers.containers) {
    podFor(container.labels).spec.containers.push({
      name: container.labels[CONTAINER_NAME_LABEL] ?? container.metadata?.name ?? '',
      image: container.image?.image ?? container.image_ref,
    });
  }
  return [...podsByUid.values()];
}
