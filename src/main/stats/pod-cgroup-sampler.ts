// Pod cgroup figures for the summary of a runtime that sends no pod figures
// (pod-cgroup-stats.ts), read a few pods at a time and kept for as long as cAdvisor
// keeps a cgroup's figures between its housekeeping passes: metrics-server,
// /metrics/resource and the eviction manager all ask within seconds of each other,
// and each of 500 pods costs three or four cgroup files.
import type { PodCgroupSettings } from '../../shared/shard-protocol.js';
import type { Pod } from '../../shared/types.js';
import { readPodCgroupSample, type PodCgroupSample } from './pod-cgroup-stats.js';

/** cAdvisor's default housekeeping interval, which upstream's pod cgroup figures are as old as at most. */
export const POD_CGROUP_SAMPLE_MAX_AGE_MS = 10_000;
/** Pods whose files are read at once: the libuv pool has four threads, and each read holds a buffer. */
const PODS_READ_AT_ONCE = 16;

export type PodCgroupReader = (settings: PodCgroupSettings, pod: Pod) => Promise<PodCgroupSample | undefined>;

interface HeldSample {
  sample?: PodCgroupSample;
  readAtMs: number;
}

export class PodCgroupSampler {
  private readonly heldByUid = new Map<string, HeldSample>();

  constructor(
    private readonly read: PodCgroupReader = readPodCgroupSample,
    private readonly nowMs: () => number = Date.now,
  ) {}

  /** The figures of these pods, by UID; a pod whose cgroup cannot be read has none. Pods not asked for are forgotten. */
  async samples(settings: PodCgroupSettings, pods: readonly Pod[]): Promise<Map<string, PodCgroupSample>> {
    const now = this.nowMs();
    const asked = new Set(pods.map((pod) => pod.metadata?.uid ?? ''));
    for (const uid of this.heldByUid.keys()) if (!asked.has(uid)) this.heldByUid.delete(uid);
    const due = pods.filter((pod) => {
      const held = this.heldByUid.get(pod.metadata?.uid ?? '');
      return !held || now - held.readAtMs >= POD_CGROUP_SAMPLE_MAX_AGE_MS;
    });
    for (let start = 0; start < due.length; start += PODS_READ_AT_ONCE) {
      const batch = due.slice(start, start + PODS_READ_AT_ONCE);
      const samples = await Promise.all(batch.map((pod) => this.read(settings, pod)));
      batch.forEach((pod, index) => this.heldByUid.set(pod.metadata?.uid ?? '', { sample: samples[index], readAtMs: now }));
    }
    const samplesByUid = new Map<string, PodCgroupSample>();
    for (const [uid, held] of this.heldByUid) if (held.sample) samplesByUid.set(uid, held.sample);
    return samplesByUid;
  }
}
