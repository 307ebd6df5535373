// A container's Linux resources and security context, as upstream's
// generateLinuxContainerConfig, generateLinuxContainerResources and
// calculateLinuxResources (helpers_linux.go for the CPU arithmetic).
import { existsSync } from 'node:fs';
import { totalmem } from 'node:os';
import { containerLimits, containerOOMScoreAdjust, resourceAmount } from '../../shared/qos.js';
import type { ShardSettings } from '../../shared/shard-protocol.js';
import type { Container, Pod } from '../../shared/types.js';
import type { LinuxContainerConfig } from '../../generated/cri/runtime/v1/LinuxContainerConfig.js';
import type { LinuxContainerResources } from '../../generated/cri/runtime/v1/LinuxContainerResources.js';
import { containerSecurityContext } from './security-context.js';
import type { ImageUser } from '../images/image-user.js';
import { CPU_QUOTA_PERIOD_US, milliCPUToQuota, milliCPUToShares } from '../../shared/cm/cpu-shares.js';

/** cgroup v2 file that caps a cgroup's tasks. */
const CGROUP2_PIDS_MAX = 'pids.max';

let cgroup2Unified: boolean | undefined;

/** True on a pure cgroup v2 host (the unified hierarchy mounted at /sys/fs/cgroup). */
export function isCgroup2UnifiedMode(): boolean {
  cgroup2Unified ??= existsSync('/sys/fs/cgroup/cgroup.controllers');
  return cgroup2Unified;
}

export interface ResourceOptions {
  memoryCapacityBytes?: number;
  /** Overrides the cgroup v2 detection (tests). */
  cgroup2?: boolean;
}

/** The container's CPU, memory and OOM settings, plus the pod pids limit where the host lets us. */
export function linuxContainerResources(
  pod: Pod,
  container: Container,
  settings: ShardSettings,
  options: ResourceOptions = {},
): LinuxContainerResources {
  const requests = container.resources?.requests ?? {};
  const limits = containerLimits(container);
  // A missing CPU request takes the limit, as the API server would have defaulted it.
  const cpuRequestMillis = resourceAmount('cpu' in requests ? requests : limits, 'cpu');
  const cpuLimitMillis = resourceAmount(limits, 'cpu');
  const memoryLimitBytes = resourceAmount(limits, 'memory');
  const resources: LinuxContainerResources = {
    cpu_shares: milliCPUToShares(cpuRequestMillis),
    cpu_period: CPU_QUOTA_PERIOD_US,
    cpu_quota: milliCPUToQuota(cpuLimitMillis, CPU_QUOTA_PERIOD_US),
    oom_score_adj: containerOOMScoreAdjust(pod, container, options.memoryCapacityBytes ?? totalmem()),
  };
  if (memoryLimitBytes !== 0) resources.memory_limit_in_bytes = memoryLimitBytes;
  // podPidsLimit belongs on the pod's own cgroup (pod-cgroup.ts). Without pod cgroups
  // (cgroupsPerQOS off) the CRI has no pids field, so on cgroup v2 each container's
  // own cgroup is capped through `unified`; on cgroup v1 runc refuses `unified`.
  if (settings.podPidsLimit > 0 && !settings.podCgroups && (options.cgroup2 ?? isCgroup2UnifiedMode())) {
    resources.unified = { [CGROUP2_PIDS_MAX]: String(settings.podPidsLimit) };
  }
  return resources;
}

/** As generateLinuxContainerConfig; `imageUser` is who the image runs as (ImageStatus). */
export function linuxContainerConfig(
  pod: Pod,
  container: Container,
  settings: ShardSettings,
  imageUser: ImageUser,
  options: ResourceOptions = {},
): LinuxContainerConfig {
  return {
    resources: linuxContainerResources(pod, container, settings, options),
    security_context: containerSecurityContext(pod, container, settings.rootDir, imageUser),
  };
}
