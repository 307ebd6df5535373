// Pod volume stats for /stats/summary's `volume` entries, measured in the background
// and served from a cache, as upstream's fsResourceAnalyzer and volumeStatCalculator
// (pkg/kubelet/server/stats): each pod's volumes are measured when the pod is first
// seen, then again after volumeStatsAggPeriod with a jitter of up to one more period
// (upstream's wait.JitterUntil with factor 1.0), so 500 pods are not all walked in
// the same second. A summary request never walks a directory. A negative period
// turns the collection off, as upstream's Start with calcPeriod <= 0.
//
// The volumes measured are the ones whose content the kubelet keeps under its root
// dir (volumes/volume-paths.ts): emptyDir, configMap, secret, downwardAPI and
// projected. hostPath volumes belong to the host and are not the pod's usage.
import type { Logger } from 'pino';
import type { Pod, Volume } from '../../shared/types.js';
import {
  CONFIG_MAP_PLUGIN_NAME,
  DOWNWARD_API_PLUGIN_NAME,
  EMPTY_DIR_PLUGIN_NAME,
  PROJECTED_PLUGIN_NAME,
  SECRET_PLUGIN_NAME,
  pluginVolumePath,
} from '../../workers/volumes/volume-paths.js';
import { summaryTime, type VolumeStats } from './summary-types.js';
import { volumeUsage, type VolumeUsage } from './volume-usage.js';

/** How often the cache looks for new pods and due measurements; new pods get figures within this. */
export const VOLUME_STATS_TICK_MS = 2_000;

/** A pod's volumes as upstream's PodVolumeStats splits them: the local ephemeral ones count in the pod's ephemeral storage. */
export interface PodVolumeStats {
  localEphemeral: VolumeStats[];
  other: VolumeStats[];
}

export interface VolumeStatsSource {
  rootDir: string;
  /** volumeStatsAggPeriod; negative: no volume stats. */
  periodMs: number;
  /** Every pod the kubelet has. */
  pods(): Pod[];
  logger: Logger;
  /** Measures one volume directory; volume-usage.ts unless a test says otherwise. */
  measure?: (path: string) => Promise<VolumeUsage>;
  random?: () => number;
  nowMs?: () => number;
}

interface MeasuredVolume {
  name: string;
  pluginName: string;
  /** Counted in the pod's ephemeral storage, as upstream's IsLocalEphemeralVolume. */
  localEphemeral: boolean;
}

/** The volumes of the pod the kubelet keeps under its root dir, with their plugin. */
export function measuredVolumes(pod: Pod): MeasuredVolume[] {
  return (pod.spec?.volumes ?? []).flatMap((volume: Volume): MeasuredVolume[] => {
    const name = volume.name;
    if (volume.emptyDir) return [{ name, pluginName: EMPTY_DIR_PLUGIN_NAME, localEphemeral: volume.emptyDir.medium !== 'Memory' }];
    if (volume.configMap) return [{ name, pluginName: CONFIG_MAP_PLUGIN_NAME, localEphemeral: true }];
    if (volume.downwardAPI) return [{ name, pluginName: DOWNWARD_API_PLUGIN_NAME, localEphemeral: true }];
    // Memory-backed (a tmpfs): what they hold is the pod's memory, not the node's disk.
    if (volume.secret) return [{ name, pluginName: SECRET_PLUGIN_NAME, localEphemeral: false }];
    if (volume.projected) return [{ name, pluginName: PROJECTED_PLUGIN_NAME, localEphemeral: false }];
    return [];
  });
}

function volumeStats(name: string, usage: VolumeUsage, atMs: number): VolumeStats {
  return {
    name,
    time: summaryTime(atMs),
    availableBytes: usage.availableBytes,
    capacityBytes: usage.capacityBytes,
    usedBytes: usage.usedBytes,
    inodesFree: usage.inodesFree,
    inodes: usage.inodes,
    inodesUsed: usage.inodesUsed,
  };
}

interface PodEntry {
  dueAtMs: number;
  stats?: PodVolumeStats;
}

export class VolumeStatsCache {
  private readonly entriesByUid = new Map<string, PodEntry>();
  /** Volumes whose measurement failed (too large, too deep, unsafe), named once each: volume names by pod UID. */
  private readonly refusalsReportedByUid = new Map<string, Set<string>>();
  private timer?: NodeJS.Timeout;
  private running = false;
  private stopped = false;
  private readonly measure: (path: string) => Promise<VolumeUsage>;
  private readonly random: () => number;
  private readonly nowMs: () => number;

  constructor(private readonly source: VolumeStatsSource) {
    this.measure = source.measure ?? ((path) => volumeUsage(path));
    this.random = source.random ?? Math.random;
    this.nowMs = source.nowMs ?? Date.now;
  }

  start(): void {
    if (this.source.periodMs < 0) {
      this.source.logger.info('Volume stats collection disabled (volumeStatsAggPeriod < 0)');
      return;
    }
    this.timer = setInterval(() => void this.refresh(), VOLUME_STATS_TICK_MS);
    void this.refresh();
  }

  /** No new measurement starts; one under way finishes its volume. */
  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
  }

  /** The pod's latest volume figures, or undefined before its first measurement. */
  get(uid: string): PodVolumeStats | undefined {
    return this.entriesByUid.get(uid)?.stats;
  }

  /** Forgets pods the kubelet no longer has, measures the pods that are due; one pass at a time. */
  async refresh(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      const pods = this.source.pods();
      const current = new Set(pods.map((pod) => pod.metadata?.uid ?? ''));
      for (const uid of this.entriesByUid.keys()) if (!current.has(uid)) this.entriesByUid.delete(uid);
      for (const uid of this.refusalsReportedByUid.keys()) if (!current.has(uid)) this.refusalsReportedByUid.delete(uid);
      for (const pod of pods) {
        const uid = pod.metadata?.uid ?? '';
        const entry = this.entriesByUid.get(uid) ?? { dueAtMs: 0 };
        this.entriesByUid.set(uid, entry);
        if (this.stopped) return;
        if (entry.dueAtMs > this.nowMs()) continue;
        entry.stats = await this.measurePod(pod);
        entry.dueAtMs = this.nowMs() + this.source.periodMs * (1 + this.random());
      }
    } finally {
      this.running = false;
    }
  }

  private async measurePod(pod: Pod): Promise<PodVolumeStats> {
    const uid = pod.metadata?.uid ?? '';
    const stats: PodVolumeStats = { localEphemeral: [], other: [] };
    for (const volume of measuredVolumes(pod)) {
      let usage: VolumeUsage;
      try {
        usage = await this.measure(pluginVolumePath(this.source.rootDir, uid, volume.pluginName, volume.name));
      } catch (err) {
        this.reportRefusal(pod, volume.name, err as NodeJS.ErrnoException);
        continue;
      }
      (volume.localEphemeral ? stats.localEphemeral : stats.other).push(volumeStats(volume.name, usage, this.nowMs()));
    }
    return stats;
  }

  /** Not set up yet (or already torn down) is no news; anything else is named once per volume. */
  private reportRefusal(pod: Pod, volumeName: string, err: NodeJS.ErrnoException): void {
    if (err.code === 'ENOENT') return;
    const uid = pod.metadata?.uid ?? '';
    const reported = this.refusalsReportedByUid.get(uid) ?? new Set<string>();
    if (reported.has(volumeName)) return;
    this.refusalsReportedByUid.set(uid, reported.add(volumeName));
    this.source.logger.warn(
      { code: err.code, pod: `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`, volume: volumeName, err: err.message },
      'Volume usage not measured; the volume has no figures in /stats/summary',
    );
  }
}
