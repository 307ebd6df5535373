// Pod cgroups of pods the kubelet does not have, removed, as upstream's
// cleanupOrphanedPodCgroups in HandlePodCleanups: a pod removed while the kubelet was
// down, a removal that found the cgroup busy, a pod of an earlier kubelet whose
// runtime forgot it. Without this they pile up for good: the memory controller of a
// v1 host runs out of cgroup IDs at 65,535 and then no pod can start (a host running
// the bench, which leaves its simulated pods behind, got there).
//
// A pod cgroup goes only when no part of the kubelet knows the pod (the caller's
// isKnown: pod manager, pod workers, the runtime's last relist) and nothing runs in
// it. Upstream's podContainerManager.Destroy kills what still runs there; shardlet
// leaves such a cgroup and names it once instead: a second kubelet on the host (the
// simulated runtime's demo or bench on a real node, the tests' kubelets one after the
// other) sees every real pod as one its runtime does not have, and must not kill them.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { cgroupMounts, removeCgroupTree } from '../../shared/cm/cgroup-fs.js';
import { cgroupPath, podCgroupName, qosCgroupName, type CgroupName } from '../../shared/cm/cgroup-name.js';
import type { QOSClass } from '../../shared/qos.js';
import type { PodCgroupSettings } from '../../shared/shard-protocol.js';

const QOS_TIERS: QOSClass[] = ['Guaranteed', 'Burstable', 'BestEffort'];
/** The hierarchy most passes list (v1: every pod cgroup the kubelet made is in it; v2 has one tree). */
const LISTING_CONTROLLER = 'memory';
/**
 * Every this many passes (a minute at housekeeping's 2 s) the listing covers every
 * hierarchy: 5 ms of the main thread at 500 pods on a host with ten, against 1 ms for
 * the one.
 */
const EVERY_HIERARCHY_EVERY_PASSES = 30;
/** cgroupfs: pod<uid>; systemd: <tier>-pod<uid with '-' as '_'>.slice. */
const CGROUPFS_POD = /^pod([0-9a-zA-Z-]+)$/;
const SYSTEMD_POD = /-pod([0-9a-zA-Z_]+)\.slice$/;

export interface OrphanCleanupOutcome {
  removed: string[];
  /** Cgroups with processes in them, left alone (and named once). */
  busy: string[];
  /** Cgroups the filesystem would not let go this time: tried again next pass. */
  failed: string[];
}

export class OrphanedPodCgroups {
  private running = false;
  private passes = 0;
  /** Busy orphans already named: one warning per pod, not one per pass. */
  private readonly busyReported = new Set<string>();

  constructor(
    private readonly settings: PodCgroupSettings,
    private readonly logger: Logger,
  ) {}

  /** One pass; a pass still running makes this one a no-op (housekeeping comes every 2 s). */
  async cleanup(isKnown: (uid: string) => boolean): Promise<OrphanCleanupOutcome> {
    const outcome: OrphanCleanupOutcome = { removed: [], busy: [], failed: [] };
    if (this.running) return outcome;
    this.running = true;
    try {
      const cgroups = await this.podCgroups(this.passes++ % EVERY_HIERARCHY_EVERY_PASSES === 0);
      for (const [uid, name] of cgroups) {
        if (isKnown(uid)) continue;
        outcome[await this.destroy(uid, name)].push(uid);
      }
      for (const uid of this.busyReported) if (!cgroups.has(uid)) this.busyReported.delete(uid);
    } finally {
      this.running = false;
    }
    if (outcome.removed.length > 0 || outcome.failed.length > 0) {
      this.logger.info({ removed: outcome.removed.length, failed: outcome.failed }, 'Removed cgroups of pods the kubelet does not have');
    }
    return outcome;
  }

  /**
   * Every pod cgroup under the QoS tiers, by pod UID (upstream's GetAllPodsFromCgroups),
   * from the listing hierarchy or from every one: a removal cut short (the kubelet
   * killed in the middle) or a runtime's leftovers can leave a pod's cgroup in some
   * hierarchies only.
   */
  async podCgroups(everyHierarchy = true): Promise<Map<string, CgroupName>> {
    const { settings } = this;
    const { layout } = settings;
    const listed = layout.version === 'v1' && !everyHierarchy ? [layout.mounts[LISTING_CONTROLLER] ?? cgroupMounts(layout)[0]!] : cgroupMounts(layout);
    const found = new Map<string, CgroupName>();
    for (const qos of QOS_TIERS) {
      const tier = qosCgroupName(settings.root, qos);
      const tierPath = cgroupPath(tier, settings.driver);
      for (const mount of listed) {
        const entries = await readdir(join(mount, tierPath), { withFileTypes: true }).catch(() => []);
        for (const entry of entries) {
          if (!entry.isDirectory()) continue;
          const uid = podUidOf(entry.name, settings.driver);
          if (uid && !found.has(uid)) found.set(uid, podCgroupName(settings.root, qos, uid));
        }
      }
    }
    return found;
  }

  /** Removes an empty orphan's cgroup, its children first, from every hierarchy; one with processes stays. */
  private async destroy(uid: string, name: CgroupName): Promise<'removed' | 'busy' | 'failed'> {
    const path = cgroupPath(name, this.settings.driver);
    const directories = cgroupMounts(this.settings.layout).map((mount) => join(mount, path));
    const pids = [...new Set((await Promise.all(directories.map(processesUnder))).flat())];
    if (pids.length > 0) {
      if (!this.busyReported.has(uid)) {
        this.busyReported.add(uid);
        this.logger.warn({ podUID: uid, cgroup: path, processes: pids.length }, 'Processes run in the cgroup of a pod neither this kubelet nor its runtime has; left alone');
      }
      return 'busy';
    }
    this.logger.debug({ podUID: uid }, 'Orphaned pod found, removing pod cgroups');
    try {
      await Promise.all(directories.map(removeCgroupTree));
      return 'removed';
    } catch (err) {
      this.logger.warn({ cgroup: path, err: (err as Error).message }, 'Failed to remove the cgroup of an orphaned pod; trying again later');
      return 'failed';
    }
  }
}

/** The pod UID a pod cgroup's directory name carries; undefined for anything else (the tiers inside kubepods). */
export function podUidOf(directoryName: string, driver: PodCgroupSettings['driver']): string | undefined {
  if (driver === 'cgroupfs') return CGROUPFS_POD.exec(directoryName)?.[1];
  return SYSTEMD_POD.exec(directoryName)?.[1]?.replaceAll('_', '-');
}

/** The PIDs in a cgroup and every cgroup below it (the runtime nests the sandbox and containers in the pod's). */
async function processesUnder(directory: string): Promise<number[]> {
  const own = await readFile(join(directory, 'cgroup.procs'), 'utf8').catch(() => '');
  const pids = own.split('\n').filter((line) => line !== '').map(Number);
  const children = await readdir(directory, { withFileTypes: true }).catch(() => []);
  for (const child of children) if (child.isDirectory()) pids.push(...(await processesUnder(join(directory, child.name))));
  return pids;
}
