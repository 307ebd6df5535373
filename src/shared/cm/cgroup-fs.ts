// The kubelet's hand on the cgroup filesystem: finds how the host mounts cgroups
// (v2 unified, or v1 with one hierarchy per controller, possibly next to an empty
// v2 mount: the "hybrid" layout), creates a cgroup with its limits in every
// hierarchy that enforces one, and removes it from every hierarchy. Both the main
// thread (the kubepods and QoS tiers) and the shards (pod cgroups) use it; all of it
// is asynchronous, so a slow cgroupfs never stalls a thread's other work.
import { access, mkdir, readdir, readFile, rmdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cpuSharesToWeight } from './cpu-shares.js';
import type { CgroupLimits } from './pod-cgroup-config.js';

export type CgroupVersion = 'v1' | 'v2';

export interface CgroupLayout {
  version: CgroupVersion;
  /** v1: controller → mount point, for every mounted v1 hierarchy; v2: `unified` → the mount point. */
  mounts: Record<string, string>;
  /**
   * v1 next to an empty v2 mount (hybrid): that mount. The kubelet sets nothing there,
   * but runc nests each container's cgroup under the pod's path in it too, so a pod's
   * cgroup is removed from it as well.
   */
  hybridUnified?: string;
  /** For the start-up log: "v2", "v1" or "hybrid (v1 controllers, v2 at …)". */
  description: string;
}

const MOUNTINFO = '/proc/self/mountinfo';
/** The v1 controllers whose files carry the limits the kubelet sets. */
const V1_LIMIT_CONTROLLERS = ['cpu', 'memory', 'pids'] as const;
/** The v2 controllers enabled down the kubelet's hierarchy. */
const V2_CONTROLLERS = ['cpu', 'memory', 'pids'];
const UNIFIED = 'unified';
/** The v1 controllers (the other super options of a cgroup mount are flags: xattr, noprefix, …). */
const V1_CONTROLLERS = new Set([
  'cpu', 'cpuacct', 'cpuset', 'memory', 'pids', 'blkio', 'devices', 'freezer', 'net_cls', 'net_prio', 'perf_event', 'hugetlb', 'rdma', 'misc',
]);
/** Named v1 hierarchies ("name=systemd") hold no limit, but the runtime nests cgroups there too. */
const NAMED_HIERARCHY = /^name=/;

/** Reads the cgroup mounts from mountinfo (fields: … mount point … - fstype source super-options). */
export async function detectCgroupLayout(mountinfoPath: string = MOUNTINFO): Promise<CgroupLayout> {
  const text = await readFile(mountinfoPath, 'utf8');
  const v1: Record<string, string> = {};
  let v2: string | undefined;
  for (const line of text.split('\n')) {
    const [before, after] = line.split(' - ');
    if (!before || !after) continue;
    const mountPoint = unescapeOctal(before.split(' ')[4] ?? '');
    const [fsType, , superOptions = ''] = after.split(' ');
    if (fsType === 'cgroup2') v2 ??= mountPoint;
    if (fsType !== 'cgroup') continue;
    for (const option of superOptions.split(',')) {
      if (V1_CONTROLLERS.has(option) || NAMED_HIERARCHY.test(option)) v1[option] ??= mountPoint;
    }
  }
  if (!Object.keys(v1).some((key) => V1_CONTROLLERS.has(key))) {
    if (!v2) throw new Error('no cgroup filesystem is mounted (neither cgroup v1 nor v2 in /proc/self/mountinfo)');
    return { version: 'v2', mounts: { [UNIFIED]: v2 }, description: 'v2' };
  }
  if (!v2) return { version: 'v1', mounts: v1, description: 'v1' };
  return { version: 'v1', mounts: v1, hybridUnified: v2, description: `hybrid (v1 controllers, v2 at ${v2} without them)` };
}

/** Creates the cgroup `path` (below each mount point) where it is missing and writes its limits. */
export async function ensureCgroup(layout: CgroupLayout, path: string, limits: CgroupLimits): Promise<void> {
  if (layout.version === 'v2') return ensureCgroupV2(layout.mounts[UNIFIED]!, path, limits);
  // Every v1 hierarchy gets the directory, as upstream's cgroupfs manager makes it in
  // all subsystems; the runtime then nests the sandbox's and containers' cgroups in it.
  await Promise.all(Object.values(unique(layout.mounts)).map((mount) => mkdir(join(mount, path), { recursive: true })));
  await Promise.all(V1_LIMIT_CONTROLLERS.map((controller) => {
    const mount = layout.mounts[controller];
    return mount ? writeV1Limits(controller, join(mount, path), limits) : undefined;
  }));
}

/** Every mount point a cgroup of the kubelet's may stand under: each v1 hierarchy once, the hybrid v2 mount, or the v2 tree. */
export function cgroupMounts(layout: CgroupLayout): string[] {
  const mounts = new Set(Object.values(layout.mounts));
  if (layout.hybridUnified) mounts.add(layout.hybridUnified);
  return [...mounts];
}

/**
 * Removes the cgroup, with the empty cgroups the runtime left below it, from every
 * hierarchy. Each hierarchy is tried even when another refuses (a cgroup with
 * processes in it), so what is left stands everywhere and the next attempt, or the
 * orphan cleanup, finds it; a cgroup already gone is not an error.
 */
export async function removeCgroup(layout: CgroupLayout, path: string): Promise<void> {
  // Never a hierarchy's root: that would take every empty cgroup on the host with it.
  if (path.split('/').every((part) => part === '')) throw new Error(`refusing to remove the root of the cgroup hierarchies (path '${path}')`);
  const results = await Promise.allSettled(cgroupMounts(layout).map((mount) => removeCgroupTree(join(mount, path))));
  const refused = results.find((result) => result.status === 'rejected');
  if (refused) throw refused.reason;
}

/** rmdir of a cgroup directory after the cgroups below it; one already gone is fine. */
export async function removeCgroupTree(directory: string): Promise<void> {
  const children = await readdir(directory, { withFileTypes: true }).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined;
    throw err;
  });
  if (!children) return;
  for (const child of children) if (child.isDirectory()) await removeCgroupTree(join(directory, child.name));
  await rmdir(directory).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'ENOENT') throw err;
  });
}

/** The directory of the cgroup in one controller's hierarchy (v2: the one unified tree). */
export function cgroupDirectory(layout: CgroupLayout, controller: string, path: string): string | undefined {
  const mount = layout.version === 'v2' ? layout.mounts[UNIFIED] : layout.mounts[controller];
  return mount === undefined ? undefined : join(mount, path);
}

async function writeV1Limits(controller: (typeof V1_LIMIT_CONTROLLERS)[number], dir: string, limits: CgroupLimits): Promise<void> {
  if (controller === 'cpu') {
    if (limits.cpuShares !== undefined) await writeFile(join(dir, 'cpu.shares'), String(limits.cpuShares));
    // The period first: the kernel checks the quota against the period in force.
    if (limits.cpuPeriodUs !== undefined) await writeFile(join(dir, 'cpu.cfs_period_us'), String(limits.cpuPeriodUs));
    if (limits.cpuQuotaUs !== undefined) await writeFile(join(dir, 'cpu.cfs_quota_us'), String(limits.cpuQuotaUs || -1));
  } else if (controller === 'memory') {
    if (limits.memoryLimitBytes !== undefined) await writeFile(join(dir, 'memory.limit_in_bytes'), String(limits.memoryLimitBytes || -1));
  } else if (limits.pidsLimit !== undefined) {
    await writeFile(join(dir, 'pids.max'), limits.pidsLimit > 0 ? String(limits.pidsLimit) : 'max');
  }
}

async function ensureCgroupV2(mount: string, path: string, limits: CgroupLimits): Promise<void> {
  const dir = join(mount, path);
  await mkdir(dir, { recursive: true });
  // A controller's files appear in a cgroup only when its parent delegates the controller.
  const parts = path.split('/').filter((part) => part !== '');
  for (let depth = 0; depth < parts.length; depth++) {
    await enableControllers(join(mount, ...parts.slice(0, depth)));
  }
  if (limits.cpuShares !== undefined) await writeFile(join(dir, 'cpu.weight'), String(cpuSharesToWeight(limits.cpuShares)));
  if (limits.cpuQuotaUs !== undefined || limits.cpuPeriodUs !== undefined) {
    const quota = limits.cpuQuotaUs ? String(limits.cpuQuotaUs) : 'max';
    await writeFile(join(dir, 'cpu.max'), `${quota} ${limits.cpuPeriodUs ?? 100_000}`);
  }
  if (limits.memoryLimitBytes !== undefined) await writeFile(join(dir, 'memory.max'), limits.memoryLimitBytes ? String(limits.memoryLimitBytes) : 'max');
  if (limits.pidsLimit !== undefined) await writeFile(join(dir, 'pids.max'), limits.pidsLimit > 0 ? String(limits.pidsLimit) : 'max');
}

async function enableControllers(dir: string): Promise<void> {
  const available = (await readFile(join(dir, 'cgroup.controllers'), 'utf8')).split(/\s+/);
  const wanted = V2_CONTROLLERS.filter((controller) => available.includes(controller));
  if (wanted.length > 0) await writeFile(join(dir, 'cgroup.subtree_control'), wanted.map((c) => `+${c}`).join(' '));
}

/** One entry per mount point (v1 co-mounts like cpu,cpuacct share a directory). */
function unique(mounts: Record<string, string>): Record<string, string> {
  const byPath: Record<string, string> = {};
  for (const [controller, mount] of Object.entries(mounts)) byPath[mount] ??= controller;
  return Object.fromEntries(Object.entries(byPath).map(([mount, controller]) => [controller, mount]));
}

/** mountinfo escapes space, tab, newline and backslash as \ooo. */
function unescapeOctal(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));
}

/** True when the cgroup exists in the hierarchy of `controller`. */
export async function cgroupExists(layout: CgroupLayout, controller: string, path: string): Promise<boolean> {
  const dir = cgroupDirectory(layout, controller, path);
  if (!dir) return false;
  try {
    await access(dir);
    return true;
  } catch {
    return false;
  }
}
