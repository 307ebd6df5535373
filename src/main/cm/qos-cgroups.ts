// The node's cgroup hierarchy for pods, as upstream's container manager sets it up
// with cgroupsPerQOS: the node allocatable cgroup `kubepods` (limited to capacity
// minus systemReserved and kubeReserved when enforceNodeAllocatable has "pods"),
// and in it the `burstable` and `besteffort` tiers. Guaranteed pods sit directly in
// kubepods. The tiers' CPU shares follow the pods (upstream's QoS container manager):
// besteffort gets the minimum, burstable the sum of its pods' CPU requests, so under
// contention each tier gets CPU in proportion to what its pods asked for.
import type { Logger } from 'pino';
import { podRequests } from '../../shared/admission/pod-requests.js';
import { ensureCgroup, detectCgroupLayout } from '../../shared/cm/cgroup-fs.js';
import { cgroupPath, cgroupRootName, qosCgroupName, type CgroupDriver } from '../../shared/cm/cgroup-name.js';
import { MIN_CPU_SHARES, milliCPUToShares } from '../../shared/cm/cpu-shares.js';
import type { CgroupLimits } from '../../shared/cm/pod-cgroup-config.js';
import { ErrorCodes, ShardletError } from '../../shared/errors.js';
import { podQOSClass } from '../../shared/qos.js';
import { parseBytes, parseCpuMillis } from '../../shared/quantity.js';
import type { PodCgroupSettings } from '../../shared/shard-protocol.js';
import type { Pod } from '../../shared/types.js';
import type { KubeletOptions } from '../options/kubelet-options.js';

/** How often the tiers' shares are brought up to date (upstream's periodic QoS update). */
export const QOS_UPDATE_PERIOD_MS = 60_000;

type CgroupOptions = Pick<KubeletOptions, 'cgroupsPerQOS' | 'cgroupDriver' | 'cgroupRoot' | 'enforceNodeAllocatable' | 'systemReserved' | 'kubeReserved'>;

export interface NodeMachine {
  numCores: number;
  memoryCapacityBytes: number;
}

export class QosCgroups {
  private settings?: PodCgroupSettings;
  private lastBurstableShares = -1;

  constructor(
    private readonly options: CgroupOptions,
    private readonly logger: Logger,
  ) {}

  /**
   * Creates kubepods and the tiers; resolves with what the shards need for pod
   * cgroups, or undefined with cgroupsPerQOS off. A host where the hierarchy cannot
   * be made fails the start, as upstream's "Failed to start ContainerManager".
   */
  async start(machine: NodeMachine): Promise<PodCgroupSettings | undefined> {
    const { options } = this;
    if (!options.cgroupsPerQOS) {
      this.logger.info('cgroupsPerQOS is off: pods get no cgroups of their own');
      return undefined;
    }
    const driver = options.cgroupDriver as CgroupDriver;
    const root = cgroupRootName(options.cgroupRoot);
    try {
      const layout = await detectCgroupLayout();
      this.settings = { layout, driver, root };
      await ensureCgroup(layout, this.pathOf('Guaranteed'), this.nodeAllocatableLimits(machine));
      await ensureCgroup(layout, this.pathOf('Burstable'), { cpuShares: MIN_CPU_SHARES });
      await ensureCgroup(layout, this.pathOf('BestEffort'), { cpuShares: MIN_CPU_SHARES });
      this.logger.info({ cgroups: layout.description, driver, kubepods: this.pathOf('Guaranteed') }, 'Pod cgroup hierarchy ready');
    } catch (err) {
      throw new ShardletError(
        ErrorCodes.CONFIG_INVALID,
        `Failed to start ContainerManager: cannot set up the pod cgroups (cgroupsPerQOS): ${(err as Error).message}`,
        { field: 'cgroupsPerQOS' },
      );
    }
    return this.settings;
  }

  /** Burstable shares = the sum of the burstable pods' CPU requests; written only when it changed. */
  async update(pods: Iterable<Pod>): Promise<void> {
    if (!this.settings) return;
    let burstableMillis = 0;
    for (const pod of pods) {
      if (podQOSClass(pod) === 'Burstable') burstableMillis += podRequests(pod).cpuMillis;
    }
    const shares = milliCPUToShares(burstableMillis);
    if (shares === this.lastBurstableShares) return;
    try {
      await ensureCgroup(this.settings.layout, this.pathOf('Burstable'), { cpuShares: shares });
      this.lastBurstableShares = shares;
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, 'Failed to update the burstable QoS cgroup');
    }
  }

  private pathOf(qos: 'Guaranteed' | 'Burstable' | 'BestEffort'): string {
    const { root, driver } = this.settings!;
    return cgroupPath(qosCgroupName(root, qos), driver);
  }

  /** kubepods: CPU shares for the allocatable CPU; memory capped at capacity minus reservations when "pods" is enforced. */
  private nodeAllocatableLimits(machine: NodeMachine): CgroupLimits {
    const { options } = this;
    const reserved = (name: 'cpu' | 'memory') => {
      const parse = name === 'cpu' ? parseCpuMillis : parseBytes;
      return [options.systemReserved[name], options.kubeReserved[name]].reduce((sum, q) => sum + (q === undefined ? 0 : parse(q)), 0);
    };
    const cpuMillis = Math.max(machine.numCores * 1000 - reserved('cpu'), 0);
    const limits: CgroupLimits = { cpuShares: milliCPUToShares(cpuMillis) };
    if (options.enforceNodeAllocatable.includes('pods')) {
      limits.memoryLimitBytes = Math.max(machine.memoryCapacityBytes - reserved('memory'), 0);
    }
    return limits;
  }
}
