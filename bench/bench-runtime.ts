// The runtime a run or a floor talks to: a fresh simulated runtime in this process
// (so its per-method call counts are at hand), or the project's containerd, whose
// pods outlive their kubelet and must be removed over the CRI.
import { join } from 'node:path';
import { CriClient } from '../src/shared/cri/client.js';
import { mergeLatencyOverrides } from '../src/simruntime/latency-model.js';
import type { PersonalityName } from '../src/simruntime/personality.js';
import { SIM_PROFILES } from '../src/simruntime/profiles.js';
import { startSimRuntime } from '../src/simruntime/server.js';
import { limiter } from './limiter.js';
import type { ImageSet, RuntimeProfile } from './scenarios.js';

const CLEANUP_CALL_TIMEOUT_MS = 60_000;
/** containerd stops sandboxes on its 2 cores anyway; more at once only queues. */
const CLEANUP_CONCURRENCY = 8;

export type CriCallsByMethod = Partial<Record<string, number>>;

export interface BenchRuntime {
  endpoint: string;
  /** Calls served so far per method, when the runtime counts them itself (the sim). */
  criCalls?: () => CriCallsByMethod;
  close(): Promise<void>;
}

/** How a run reaches containerd: the endpoint scripts/containerd/setup.sh brought up. */
export interface ContainerdTarget {
  endpoint: string;
  image: string;
}

/**
 * A fresh runtime for one run or floor. On containerd, `podLabels` names the pods
 * that belong to it: leftovers from an interrupted run are removed before, and
 * this run's pods after.
 */
export async function openBenchRuntime(
  profile: RuntimeProfile,
  imageSet: ImageSet,
  workDir: string,
  containerd: ContainerdTarget | undefined,
  podLabels: Record<string, string>,
  /** The sim only: false answers GetContainerEvents with UNIMPLEMENTED, as containerd 1.6. */
  containerEvents = true,
  /** The sim only: answer as this runtime (src/simruntime/personality.ts). */
  personality?: PersonalityName,
): Promise<BenchRuntime> {
  if (profile === 'containerd') {
    if (!containerd) throw new Error('bench: a containerd run without containerd set up');
    await removeSandboxes(containerd.endpoint, podLabels);
    return { endpoint: containerd.endpoint, close: () => removeSandboxes(containerd.endpoint, podLabels).then(() => undefined) };
  }
  const sim = await startSimRuntime({
    socketPath: join(workDir, 'sim.sock'),
    latency: mergeLatencyOverrides(SIM_PROFILES[profile].latency, { imageSizesBytes: imageSet.sizesBytes }),
    containerEvents,
    personality,
  });
  return { endpoint: sim.endpoint, criCalls: () => sim.stats().calls, close: () => sim.close() };
}

/** Stops and removes every sandbox carrying all of `labels`; resolves with how many there were. */
async function removeSandboxes(endpoint: string, labels: Record<string, string>): Promise<number> {
  const cri = new CriClient(endpoint, { timeoutMs: CLEANUP_CALL_TIMEOUT_MS });
  try {
    const { items } = await cri.listPodSandbox({ filter: { label_selector: labels } });
    const limit = limiter(CLEANUP_CONCURRENCY);
    await Promise.all(
      items.map((sandbox) =>
        limit(async () => {
          // StopPodSandbox kills the sandbox's containers at once (containerd gives them no grace).
          await cri.stopPodSandbox({ pod_sandbox_id: sandbox.id });
          await cri.removePodSandbox({ pod_sandbox_id: sandbox.id });
        }),
      ),
    );
    return items.length;
  } finally {
    cri.close();
  }
}
