// The CPU arithmetic the kubelet uses for container and pod cgroups alike
// (upstream's helpers_linux.go): requests become CFS shares, limits a CFS quota.

export const MIN_CPU_SHARES = 2;
export const MAX_CPU_SHARES = 262_144;
export const CPU_SHARES_PER_CPU = 1024;
export const MILLI_CPU_PER_CPU = 1000;
/** CFS period the kubelet uses unless CPUCFSQuotaPeriod says otherwise: 100 ms. */
export const CPU_QUOTA_PERIOD_US = 100_000;
/** The kernel refuses a CFS quota under 1 ms. */
export const MIN_CPU_QUOTA_US = 1000;

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

/** cgroup v2's cpu.weight for v1 shares, as libcontainer's ConvertCPUSharesToCgroupV2Value (2..262144 → 1..10000). */
export function cpuSharesToWeight(shares: number): number {
  if (shares === 0) return 0;
  return 1 + Math.trunc(((shares - MIN_CPU_SHARES) * 9999) / (MAX_CPU_SHARES - MIN_CPU_SHARES));
}
