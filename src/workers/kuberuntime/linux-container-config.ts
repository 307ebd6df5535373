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

export const MIN_CPU_SHARES = 2;
export const MAX_CPU_SHARES = 262_144;
export const CPU_SHARES_PER_CPU = 1024;
export const MILLI_CPU_PER_CPU = 1000;
/** CFS period the kubelet uses unless CPUCFSQuotaPeriod says otherwise: 100 ms. */
export const CPU_QUOTA_PERIOD_US = 100_000;
/** The kernel refuses a CFS quota under 1 ms. */
export const MIN_CPU_QUOTA_US = 1000;
/** cgroup v2 file that caps a cgroup's tasks. */
const CGROUP2_PIDS_MAX = 'pids.max';

/** As MilliCPUToShares: 1 CPU is 1024 shares, with the kernel's minimum of 2 (also for no request). */
export function milliCPUToShares(milliCPU: number): number {
  if (milliCPU === 0) return MIN_CPU_SHARES;
  const shares = Math.trunc((milliCPU * CPU_SHARES_PER_CPU) / MILLI_CPU_PER_CPU);
  return Math.min(Math.max(shares, MIN_CPU_SHARES), MAX_CPU_SHARES);
}

/** As milliCPUToQuota: the share of periodUs the limit allows; 0 (no quota) when there is no limit. */
export function milliCPUToQuota(milliCPU: number, periodUs: number): number {
  if (milliCPU === 0) return 0;
  const quota = Math.trunc((milliCPU * periodUs) / MILLI_CPU_PER_CPU);
  return Math.max(quota, MIN_CPU_QUOTA_US);
}

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
  // Upstream enforces podPidsLimit on the pod-level cgroup, which shardlet does not
  // create. The CRI has no pids field, so on cgroup v2 we cap each container's own
  // cgroup through `unified`; on cgroup v1 (or the hybrid layout) runc refuses
  // `unified`, and the limit is not enforced.
  if (settings.podPidsLimit > 0 && (options.cgroup2 ?? isCgroup2UnifiedMode())) {
    resources.unified = { [CGROUP2_PIDS_MAX]: String(settings.podPidsLimit) };
  }
  return resources;
}

/** As generateLinuxContainerConfig. */
export function linuxContainerConfig(
  pod: Pod,
  container: Container,
  settings: ShardSettings,
  options: ResourceOptions = {},
): LinuxContainerConfig {
  return {
    resources: linuxContainerResources(pod, container, settings, options),
    security_context: containerSecurityContext(pod, container, settings.rootDir),
  };
}
