// A pod's own cgroup, as upstream's podContainerManager: made (with the pod's
// limits) before its sandbox, so the runtime nests the sandbox and every container
// in it through cgroup_parent, and removed once the pod has left the runtime.
import { podCgroupLimits } from '../../shared/cm/pod-cgroup-config.js';
import { cgroupPath, podCgroupName, runtimeCgroupParent } from '../../shared/cm/cgroup-name.js';
import { ensureCgroup, removeCgroup } from '../../shared/cm/cgroup-fs.js';
import { podQOSClass } from '../../shared/qos.js';
import { unlessPathUnsafe } from '../../shared/safe-path.js';
import type { PodCgroupSettings } from '../../shared/shard-protocol.js';
import type { Pod } from '../../shared/types.js';

/** The sandbox's cgroup_parent: '' when the kubelet keeps no per-pod cgroups (cgroupsPerQOS false). */
export function podCgroupParent(pod: Pod, cgroups: PodCgroupSettings | undefined): string {
  if (!cgroups) return '';
  return runtimeCgroupParent(podCgroupName(cgroups.root, podQOSClass(pod), pod.metadata?.uid ?? ''), cgroups.driver);
}

export async function ensurePodCgroup(pod: Pod, cgroups: PodCgroupSettings | undefined, podPidsLimit: number): Promise<void> {
  if (!cgroups) return;
  const name = podCgroupName(cgroups.root, podQOSClass(pod), pod.metadata?.uid ?? '');
  await ensureCgroup(cgroups.layout, cgroupPath(name, cgroups.driver), podCgroupLimits(pod, podPidsLimit));
}

/**
 * Removes the pod's cgroup; false when it cannot go yet (something still runs in it),
 * which the caller logs: the next removal of the pod tries again.
 */
export async function removePodCgroup(pod: Pod, cgroups: PodCgroupSettings | undefined): Promise<boolean> {
  if (!cgroups) return true;
  const name = unlessPathUnsafe(() => podCgroupName(cgroups.root, podQOSClass(pod), pod.metadata?.uid ?? ''));
  // A UID that makes no safe cgroup name never had a cgroup made: ensurePodCgroup refused it the same way.
  if (!name) return true;
  try {
    await removeCgroup(cgroups.layout, cgroupPath(name, cgroups.driver));
    return true;
  } catch {
    return false;
  }
}
