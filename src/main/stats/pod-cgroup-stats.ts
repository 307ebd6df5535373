// A pod's CPU and memory read from the pod cgroup the shard made for it, for
// runtimes that send no pod-level figures in ListPodSandboxStats (CRI-O). Upstream
// reads the same cgroup through cAdvisor when the CRI gives none
// (addPodCPUMemoryStats in pkg/kubelet/stats/cri_stats_provider.go), with cAdvisor's
// definitions: the working set is usage less the inactive file pages, as
// cAdvisor's setMemoryStats for cgroup v1 (total_inactive_file) and v2 (inactive_file).
// v1 and hybrid hosts read the cpuacct and memory hierarchies, v2 the unified tree.
import { close, open, read } from 'node:fs';
import { join } from 'node:path';
import { cgroupDirectory } from '../../shared/cm/cgroup-fs.js';
import { cgroupPath, podCgroupName } from '../../shared/cm/cgroup-name.js';
import { podQOSClass } from '../../shared/qos.js';
import { parseFlatKeyed } from './flat-keyed.js';
import type { PodCgroupSettings } from '../../shared/shard-protocol.js';
import type { Pod } from '../../shared/types.js';

/** A pod cgroup's figures, as CRI's CpuUsage and MemoryUsage carry them (nanoseconds, bytes). */
export interface PodCgroupSample {
  timestampNs: number;
  usageCoreNanoSeconds?: number;
  usageBytes?: number;
  workingSetBytes?: number;
  availableBytes?: number;
  rssBytes?: number;
  pageFaults?: number;
  majorPageFaults?: number;
  /** Page cache (v2 memory.stat file, v1 total_cache): cAdvisor's container_memory_cache. */
  cacheBytes?: number;
  /** CFS figures of cpu.stat, present where the kernel keeps them (cAdvisor's container_cpu_cfs_*). */
  cfs?: CfsThrottling;
}

export interface CfsThrottling {
  periods: number;
  throttledPeriods: number;
  throttledNanoSeconds: number;
}

/** Which files beyond the summary's to read: cAdvisor's series also want the v1 cpu controller's cpu.stat. */
export interface PodCgroupReadOptions {
  /** On v1 and hybrid hosts, also read cpu.stat (CFS throttling); v2 has it in the cpu.stat read anyway. */
  v1CpuStat?: boolean;
}

const NS_PER_US = 1000;
/** v1 writes "no limit" as the largest page-aligned signed 64-bit value; anything this large is no limit. */
const V1_NO_LIMIT_FLOOR_BYTES = 2 ** 62;

function integer(text: string | undefined): number | undefined {
  const trimmed = text?.trim();
  return trimmed && /^\d+$/.test(trimmed) ? Number(trimmed) : undefined;
}

/** memory.stat is under 2 KiB on v1 and about 3 KiB on v2: one read takes a whole file. */
const READ_BUFFER_BYTES = 16 * 1024;

/**
 * A cgroup file's text, or undefined when it cannot be read. open, read and close
 * through the callback API, one read for a file that fits the buffer (a short read is
 * the end of a seq_file, as of a regular file): at 500 pods and 1,500 files per
 * request, fs/promises' readFile cost 46 ms of main-thread CPU where this costs 19 ms.
 */
export function readCgroupFile(path: string | undefined): Promise<string | undefined> {
  if (path === undefined) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    open(path, 'r', (openErr, fd) => {
      if (openErr) return resolve(undefined);
      const chunks: Buffer[] = [];
      const next = () => {
        const chunk = Buffer.allocUnsafe(READ_BUFFER_BYTES);
        read(fd, chunk, 0, READ_BUFFER_BYTES, null, (readErr, bytesRead) => {
          if (!readErr) chunks.push(chunk.subarray(0, bytesRead));
          if (!readErr && bytesRead === READ_BUFFER_BYTES) return next();
          close(fd, () => resolve(readErr ? undefined : Buffer.concat(chunks).toString('utf8')));
        });
      };
      next();
    });
  });
}

/** The memory figures from usage, the limit and memory.stat, with the stat keys of the cgroup version. */
function memoryFigures(
  usageBytes: number | undefined,
  limitBytes: number | undefined,
  stat: Map<string, number>,
  keys: { inactiveFile: string; rss: string; cache: string; pageFaults: string; majorPageFaults: string },
) {
  if (usageBytes === undefined) return {};
  const inactiveFile = stat.get(keys.inactiveFile) ?? 0;
  const workingSetBytes = Math.max(usageBytes - inactiveFile, 0);
  return {
    usageBytes,
    workingSetBytes,
    availableBytes: limitBytes === undefined ? undefined : Math.max(limitBytes - workingSetBytes, 0),
    rssBytes: stat.get(keys.rss),
    cacheBytes: stat.get(keys.cache),
    pageFaults: stat.get(keys.pageFaults),
    majorPageFaults: stat.get(keys.majorPageFaults),
  };
}

/** The CFS counters of a cpu.stat, when all three are there (a cgroup without the cpu controller has none). */
function cfsThrottling(cpuStat: Map<string, number>, throttledKey: string, nsPerUnit: number): CfsThrottling | undefined {
  const periods = cpuStat.get('nr_periods');
  const throttledPeriods = cpuStat.get('nr_throttled');
  const throttled = cpuStat.get(throttledKey);
  if (periods === undefined || throttledPeriods === undefined || throttled === undefined) return undefined;
  return { periods, throttledPeriods, throttledNanoSeconds: throttled * nsPerUnit };
}

/** cgroup v2: cpu.stat usage_usec (and the CFS counters), memory.current, memory.max, memory.stat. */
export function podSampleV2(files: { cpuStat?: string; memoryCurrent?: string; memoryMax?: string; memoryStat?: string }, timestampNs: number): PodCgroupSample | undefined {
  const cpuStat = parseFlatKeyed(files.cpuStat ?? '');
  const usageUs = files.cpuStat === undefined ? undefined : cpuStat.get('usage_usec');
  const memory = memoryFigures(integer(files.memoryCurrent), integer(files.memoryMax), parseFlatKeyed(files.memoryStat ?? ''), {
    inactiveFile: 'inactive_file',
    rss: 'anon',
    cache: 'file',
    pageFaults: 'pgfault',
    majorPageFaults: 'pgmajfault',
  });
  if (usageUs === undefined && memory.usageBytes === undefined) return undefined;
  const usageCoreNanoSeconds = usageUs === undefined ? undefined : usageUs * NS_PER_US;
  return { timestampNs, usageCoreNanoSeconds, ...memory, cfs: cfsThrottling(cpuStat, 'throttled_usec', NS_PER_US) };
}

/** cgroup v1: cpuacct.usage, memory.usage_in_bytes, memory.stat (hierarchical totals, and the limit in force), cpu.stat when read. */
export function podSampleV1(files: { cpuacctUsage?: string; memoryUsage?: string; memoryStat?: string; cpuStat?: string }, timestampNs: number): PodCgroupSample | undefined {
  const usageCoreNanoSeconds = integer(files.cpuacctUsage);
  const stat = parseFlatKeyed(files.memoryStat ?? '');
  const limit = stat.get('hierarchical_memory_limit');
  const memory = memoryFigures(integer(files.memoryUsage), limit !== undefined && limit < V1_NO_LIMIT_FLOOR_BYTES ? limit : undefined, stat, {
    inactiveFile: 'total_inactive_file',
    rss: 'total_rss',
    cache: 'total_cache',
    pageFaults: 'total_pgfault',
    majorPageFaults: 'total_pgmajfault',
  });
  if (usageCoreNanoSeconds === undefined && memory.usageBytes === undefined) return undefined;
  // v1's throttled_time is already in nanoseconds.
  return { timestampNs, usageCoreNanoSeconds, ...memory, cfs: cfsThrottling(parseFlatKeyed(files.cpuStat ?? ''), 'throttled_time', 1) };
}

/**
 * The pod's cgroup figures now, or undefined when the cgroup cannot be read (no pod
 * cgroups, a UID that is no plain path segment, a cgroup already gone).
 */
export async function readPodCgroupSample(settings: PodCgroupSettings, pod: Pod, options: PodCgroupReadOptions = {}): Promise<PodCgroupSample | undefined> {
  let path: string;
  try {
    path = cgroupPath(podCgroupName(settings.root, podQOSClass(pod), pod.metadata?.uid ?? ''), settings.driver);
  } catch {
    return undefined;
  }
  const file = (controller: string, name: string) => {
    const dir = cgroupDirectory(settings.layout, controller, path);
    return dir === undefined ? undefined : join(dir, name);
  };
  if (settings.layout.version === 'v2') {
    const [cpuStat, memoryCurrent, memoryMax, memoryStat] = await Promise.all(
      [file('cpu', 'cpu.stat'), file('memory', 'memory.current'), file('memory', 'memory.max'), file('memory', 'memory.stat')].map(readCgroupFile),
    );
    return podSampleV2({ cpuStat, memoryCurrent, memoryMax, memoryStat }, Date.now() * 1e6);
  }
  const [cpuacctUsage, memoryUsage, memoryStat, cpuStat] = await Promise.all(
    [
      file('cpuacct', 'cpuacct.usage'),
      file('memory', 'memory.usage_in_bytes'),
      file('memory', 'memory.stat'),
      options.v1CpuStat ? file('cpu', 'cpu.stat') : undefined,
    ].map(readCgroupFile),
  );
  return podSampleV1({ cpuacctUsage, memoryUsage, memoryStat, cpuStat }, Date.now() * 1e6);
}
