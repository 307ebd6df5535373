// What a churn leaves behind, read the way an operator would look: the runtime's
// sandboxes and containers over the CRI, the pod directories under --root-dir and
// the pod log directories under podLogsDir, each judged against the pods whose
// manifests are still there (their UIDs as shardlet's /pods shows them).
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { CriClient } from '../src/shared/cri/client.js';
import { POD_UID_LABEL } from '../src/shared/labels.js';
import type { Pod } from '../src/shared/types.js';
import type { ChurnLeaks } from './results.js';

/**
 * Leak counts are read once they stop changing for this long: a termination takes well
 * under a second, and one that failed is retried after the pod workers' 10 s backoff…
 */
const SETTLED_AFTER_MS = 15_000;
/** …or at the latest this long after the churn stopped. */
const SETTLE_TIMEOUT_MS = 90_000;
const SETTLE_POLL_MS = 1_000;

export interface LeakProbe {
  cri: CriClient;
  pods(): Promise<Pod[]>;
  rootDir: string;
  podLogsDir: string;
  /** "namespace/name" of every pod whose manifest is present. */
  wantedKeys: ReadonlySet<string>;
}

const keyOf = (pod: Pod) => `${pod.metadata?.namespace}/${pod.metadata?.name}`;

export async function countLeaks(probe: LeakProbe): Promise<ChurnLeaks> {
  const wantedPods = (await probe.pods()).filter((pod) => probe.wantedKeys.has(keyOf(pod)));
  const wantedUids = new Set(wantedPods.map((pod) => pod.metadata?.uid ?? ''));
  const { items: sandboxes } = await probe.cri.listPodSandbox({});
  const { containers } = await probe.cri.listContainers({});
  const sandboxesByUid = new Map<string, number>();
  for (const sandbox of sandboxes) {
    const uid = sandbox.labels?.[POD_UID_LABEL] ?? '';
    sandboxesByUid.set(uid, (sandboxesByUid.get(uid) ?? 0) + 1);
  }
  let leakedSandboxes = 0;
  for (const [uid, count] of sandboxesByUid) leakedSandboxes += wantedUids.has(uid) ? count - 1 : count;
  const logDirUid = (name: string) => name.slice(name.lastIndexOf('_') + 1);
  return {
    sandboxes: leakedSandboxes,
    containers: containers.filter((container) => !wantedUids.has(container.labels?.[POD_UID_LABEL] ?? '')).length,
    podDirs: (await entries(join(probe.rootDir, 'pods'))).filter((name) => !wantedUids.has(name)).length,
    // <namespace>_<name>_<uid>, as upstream names them.
    logDirs: (await entries(probe.podLogsDir)).filter((name) => !wantedUids.has(logDirUid(name))).length,
    notRunning: probe.wantedKeys.size - wantedPods.filter((pod) => pod.status?.phase === 'Running').length,
  };
}

/**
 * Counts until nothing is left, or until the counts have not changed for
 * SETTLED_AFTER_MS (what stays then is leaked), or SETTLE_TIMEOUT_MS at most.
 * Resolves with the last counts and how long it waited.
 */
export async function settledLeaks(probe: LeakProbe): Promise<{ leaks: ChurnLeaks; settleSeconds: number }> {
  const startedMs = Date.now();
  let leaks = await countLeaks(probe);
  let changedMs = startedMs;
  while (!allZero(leaks) && Date.now() - changedMs < SETTLED_AFTER_MS && Date.now() - startedMs < SETTLE_TIMEOUT_MS) {
    await new Promise((resolve) => setTimeout(resolve, SETTLE_POLL_MS));
    const next = await countLeaks(probe);
    if (JSON.stringify(next) !== JSON.stringify(leaks)) changedMs = Date.now();
    leaks = next;
  }
  return { leaks, settleSeconds: (Date.now() - startedMs) / 1000 };
}

function allZero(leaks: ChurnLeaks): boolean {
  return Object.values(leaks).every((count) => count === 0);
}

async function entries(directory: string): Promise<string[]> {
  return readdir(directory).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return [];
    throw err;
  });
}
