// Named latency profiles of the simulated runtime, for `shardlet-sim-runtime
// --profile` and `npm run bench -- --profile`. Without a profile the sim uses the
// defaults of latency-model.ts: single calls as measured on containerd here.
//
// "arm" models the runtime of a dense many-core ARM node (64 cores, maxPods 500),
// derived from what a bare gRPC client measured on this machine kind against
// containerd 1.6 + runc + the bridge CNI (DESIGN.md):
//   - Per-call latencies: the measured ones × ARM_CORE_SLOWDOWN. Each heavy call is
//     one mostly single-threaded path (shim start, runc, CNI plugin exec), so it
//     runs at the speed of one core; we assume a Neoverse-N1-class core (Ampere
//     Altra, Graviton2) is about 20 % slower at it than the x86 vCPU measured
//     here. An assumption, rounded, not a measurement.
//   - Runtime operation slots: 250 one-container pods started in parallel took
//     ≈ 33 s on 2 cores, against 250 × (90 + 8 + 55) ms ≈ 38 s of single-call time,
//     so the runtime kept ≈ 1.2 heavy operations going on 2 cores, ≈ 0.6 per core.
//     On 64 cores that is ≈ 37; the pods' own processes and the kubelet take cores
//     too, so half the cores: 32.
//   - Registry: an in-cluster mirror over 10 GbE, ≈ 1 GB/s of goodput shared by
//     the node's pulls, and each pull capped at 200 MB/s: containerd downloads a
//     pull's layers in parallel but decompresses and unpacks them one stream at a
//     time, and gzip on one core runs at a few hundred MB/s. A manifest resolve
//     costs a few round trips to the mirror: 40 ms.
//   - Jitter ±25 %, wider than the default ±20 % because the node also runs its
//     workloads (an assumption).
// "instant" answers every call at once (scale 0): only shardlet's own cost shows.
import type { LatencyOverrides } from './latency-model.js';

/** How much slower a heavy runtime call is on the modelled ARM core than on the x86 vCPU measured here. */
export const ARM_CORE_SLOWDOWN = 1.2;
export const ARM_RUNTIME_OPERATION_SLOTS = 32;
export const ARM_REGISTRY_BANDWIDTH_BYTES_PER_SECOND = 1_000_000_000;
export const ARM_PULL_BYTES_PER_SECOND = 200_000_000;
export const ARM_PULL_RESOLVE_MS = 40;
export const ARM_JITTER_FRACTION = 0.25;

/** Measured on containerd 1.6 here (ms), before scaling to the ARM core. */
const MEASURED_RUNTIME_CALL_MS = {
  RunPodSandbox: 90,
  StopPodSandbox: 90,
  RemovePodSandbox: 10,
  CreateContainer: 8,
  StartContainer: 55,
  StopContainer: 10,
  RemoveContainer: 5,
} as const;

export const SIM_PROFILE_NAMES = ['arm', 'instant'] as const;
export type SimProfileName = (typeof SIM_PROFILE_NAMES)[number];

export interface SimProfile {
  name: SimProfileName;
  /** A few words for help texts and bench headers. */
  summary: string;
  latency: LatencyOverrides;
}

export const SIM_PROFILES: Readonly<Record<SimProfileName, SimProfile>> = {
  arm: {
    name: 'arm',
    summary: 'dense 64-core ARM node (docs/bench.md)',
    latency: {
      scale: 1,
      jitter: ARM_JITTER_FRACTION,
      callLatencyMs: {
        ...Object.fromEntries(Object.entries(MEASURED_RUNTIME_CALL_MS).map(([rpc, ms]) => [rpc, Math.round(ms * ARM_CORE_SLOWDOWN)])),
        PullImage: ARM_PULL_RESOLVE_MS,
      },
      runtimeOperationSlots: ARM_RUNTIME_OPERATION_SLOTS,
      registryBandwidthBytesPerSecond: ARM_REGISTRY_BANDWIDTH_BYTES_PER_SECOND,
      pullBytesPerSecond: ARM_PULL_BYTES_PER_SECOND,
    },
  },
  instant: {
    name: 'instant',
    summary: 'every call answers at once, pulls included',
    latency: { scale: 0 },
  },
};

/** The profile called `name`; an unknown name throws, listing the known ones. */
export function simProfile(name: string): SimProfile {
  if (!(SIM_PROFILE_NAMES as readonly string[]).includes(name)) {
    throw new Error(`unknown sim runtime profile "${name}" (known: ${SIM_PROFILE_NAMES.join(', ')})`);
  }
  return SIM_PROFILES[name as SimProfileName];
}
