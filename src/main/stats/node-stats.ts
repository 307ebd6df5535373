// The node's own figures for /stats/summary, read where cAdvisor reads them for
// upstream's root container: CPU time from /proc/stat, memory from /proc/meminfo and
// /proc/vmstat, interfaces from /proc/net/dev (the default route's one first),
// filesystems by statfs, process limits from /proc. A handful of small reads per
// request, whatever the number of pods.
import { readFile, statfs } from 'node:fs/promises';
import { parseFlatKeyed } from './flat-keyed.js';
import type { FsCapacity } from './summary-mapping.js';
import type { InterfaceStats, MemoryStats, NetworkStats, RlimitStats } from './summary-types.js';
import { summaryTime } from './summary-types.js';

/** USER_HZ: the unit of /proc/stat, 100 on every Linux architecture shardlet runs on. */
const CLOCK_TICKS_PER_SECOND = 100;
const NS_PER_TICK = 1e9 / CLOCK_TICKS_PER_SECOND;

/** Busy CPU time of every core (user, nice, system, irq, softirq, steal), in nanoseconds. */
export function parseProcStatCpuNs(procStat: string): number {
  const line = procStat.split('\n', 1)[0];
  const fields = line.trim().split(/\s+/).slice(1).map(Number);
  const [user, nice, system, , , irq, softirq, steal] = fields;
  return (user + nice + system + (irq ?? 0) + (softirq ?? 0) + (steal ?? 0)) * NS_PER_TICK;
}

/** /proc/meminfo in bytes by key ("MemTotal" → …). */
export function parseMeminfo(meminfo: string): Map<string, number> {
  const bytesByKey = new Map<string, number>();
  for (const line of meminfo.split('\n')) {
    const match = /^([^:]+):\s+(\d+)(?:\s+kB)?/.exec(line);
    if (match) bytesByKey.set(match[1], Number(match[2]) * (line.includes('kB') ? 1024 : 1));
  }
  return bytesByKey;
}

/**
 * The node's memory as cAdvisor's root cgroup shows it: usage is what is not free,
 * the working set is usage less the inactive file pages the kernel can drop, and
 * available is what the working set leaves of the total (upstream's definition).
 */
export function nodeMemory(meminfo: Map<string, number>, vmstat: Map<string, number>, time: string): MemoryStats {
  const total = meminfo.get('MemTotal') ?? 0;
  const usageBytes = total - (meminfo.get('MemFree') ?? 0);
  const workingSetBytes = Math.max(usageBytes - (meminfo.get('Inactive(file)') ?? 0), 0);
  return {
    time,
    availableBytes: Math.max(total - workingSetBytes, 0),
    usageBytes,
    workingSetBytes,
    rssBytes: meminfo.get('AnonPages'),
    pageFaults: vmstat.get('pgfault'),
    majorPageFaults: vmstat.get('pgmajfault'),
  };
}

/** Every interface but loopback, from /proc/net/dev. */
export function parseNetDev(netDev: string): InterfaceStats[] {
  const interfaces: InterfaceStats[] = [];
  for (const line of netDev.split('\n').slice(2)) {
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const name = line.slice(0, colon).trim();
    if (name === 'lo') continue;
    const fields = line.slice(colon + 1).trim().split(/\s+/).map(Number);
    interfaces.push({ name, rxBytes: fields[0], rxErrors: fields[2], txBytes: fields[8], txErrors: fields[10] });
  }
  return interfaces;
}

/** The interface of the default route (/proc/net/route: destination 00000000). */
export function defaultRouteInterface(route: string): string | undefined {
  for (const line of route.split('\n').slice(1)) {
    const [iface, destination] = line.trim().split(/\s+/);
    if (destination === '00000000') return iface;
  }
  return undefined;
}

export async function fsCapacity(path: string): Promise<FsCapacity | undefined> {
  try {
    const fs = await statfs(path);
    return {
      capacityBytes: fs.blocks * fs.bsize,
      availableBytes: fs.bavail * fs.bsize,
      inodes: fs.files,
      inodesFree: fs.ffree,
      usedBytes: (fs.blocks - fs.bfree) * fs.bsize,
    };
  } catch {
    return undefined;
  }
}

async function readOrEmpty(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch {
    return '';
  }
}

/** When the node booted (/proc/stat btime), epoch ms: the node's startTime, as cAdvisor's root container. */
export function parseBootTimeMs(procStat: string): number | undefined {
  const match = /^btime (\d+)$/m.exec(procStat);
  return match ? Number(match[1]) * 1000 : undefined;
}

export interface NodeSample {
  /** When the files were read, epoch ms. */
  atMs: number;
  bootTimeMs?: number;
  cpuUsageCoreNanoSeconds?: number;
  memory?: MemoryStats;
  network?: NetworkStats;
  rlimit?: RlimitStats;
}

/** One read of the node's /proc figures; a file that cannot be read leaves its figure out. */
export async function sampleNode(includeNetworkAndLimits: boolean): Promise<NodeSample> {
  const [procStat, meminfo, vmstat] = await Promise.all([readOrEmpty('/proc/stat'), readOrEmpty('/proc/meminfo'), readOrEmpty('/proc/vmstat')]);
  const atMs = Date.now();
  const time = summaryTime(atMs);
  const sample: NodeSample = { atMs };
  if (procStat) {
    sample.cpuUsageCoreNanoSeconds = parseProcStatCpuNs(procStat);
    sample.bootTimeMs = parseBootTimeMs(procStat);
  }
  if (meminfo) sample.memory = nodeMemory(parseMeminfo(meminfo), parseFlatKeyed(vmstat), time);
  if (!includeNetworkAndLimits) return sample;
  const [netDev, route, pidMax, loadavg] = await Promise.all([
    readOrEmpty('/proc/net/dev'),
    readOrEmpty('/proc/net/route'),
    readOrEmpty('/proc/sys/kernel/pid_max'),
    readOrEmpty('/proc/loadavg'),
  ]);
  const interfaces = parseNetDev(netDev);
  const defaultName = defaultRouteInterface(route);
  const defaultInterface = interfaces.find((i) => i.name === defaultName) ?? interfaces[0];
  if (defaultInterface) sample.network = { time, ...defaultInterface, interfaces };
  // loadavg's fourth field is running/total scheduling entities: the total is the node's process count.
  const curproc = Number(loadavg.split(' ')[3]?.split('/')[1]);
  sample.rlimit = { time, maxpid: pidMax ? Number(pidMax.trim()) : undefined, curproc: Number.isFinite(curproc) ? curproc : undefined };
  return sample;
}
