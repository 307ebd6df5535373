// Upstream's generic PLEG relist, run off the main thread: every relist period it
// lists every sandbox and container (the decode is the costly part, hence the worker
// thread), diffs against the previous relist and hands the main thread only the
// small list of events and, when it changed, the set of pods present in the runtime.
import type { CriClient } from '../../shared/cri/client.js';
import { POD_NAME_LABEL, POD_NAMESPACE_LABEL, POD_UID_LABEL } from '../../shared/labels.js';
import { diffSnapshots, type RelistSnapshot } from '../../shared/pleg/relist-diff.js';
import type { PlegEvent } from '../../shared/shard-protocol.js';

/** A pod found in the runtime, by its labels. */
export interface RuntimePodRef {
  uid: string;
  name: string;
  namespace: string;
  /** Any container running or sandbox ready. */
  active: boolean;
}

export interface RelistResult {
  events: PlegEvent[];
  /** Present only when the set of runtime pods (or their activity) changed since the last relist. */
  runtimePods?: RuntimePodRef[];
  /** Wall time the relist took, for the relist-duration figure. */
  durationMs: number;
}

const CONTAINER_STATES = { CONTAINER_RUNNING: 'running', CONTAINER_EXITED: 'exited', CONTAINER_CREATED: 'created' } as const;

export class Relister {
  private previous: RelistSnapshot = new Map();
  private previousPodsKey = '';

  constructor(private readonly cri: CriClient) {}

  async relist(): Promise<RelistResult> {
    const startedMs = performance.now();
    const [sandboxes, containers] = await Promise.all([
      this.cri.listPodSandbox({}),
      this.cri.listContainers({}),
    ]);
    const current: RelistSnapshot = new Map();
    const podsByUid = new Map<string, RuntimePodRef>();
    for (const sandbox of sandboxes.items) {
      const uid = sandbox.labels[POD_UID_LABEL] ?? sandbox.metadata?.uid ?? '';
      if (!uid) continue;
      const ready = sandbox.state === 'SANDBOX_READY';
      current.set(sandbox.id, { podUid: uid, kind: 'sandbox', state: ready ? 'running' : 'exited' });
      const ref = podsByUid.get(uid) ?? {
        uid,
        name: sandbox.labels[POD_NAME_LABEL] ?? sandbox.metadata?.name ?? '',
        namespace: sandbox.labels[POD_NAMESPACE_LABEL] ?? sandbox.metadata?.namespace ?? '',
        active: false,
      };
      ref.active ||= ready;
      podsByUid.set(uid, ref);
    }
    for (const container of containers.containers) {
      const uid = container.labels[POD_UID_LABEL] ?? '';
      if (!uid) continue;
      const state = CONTAINER_STATES[container.state as keyof typeof CONTAINER_STATES] ?? 'unknown';
      current.set(container.id, { podUid: uid, kind: 'container', state });
      const ref = podsByUid.get(uid);
      if (ref && state === 'running') ref.active = true;
    }
    const events = diffSnapshots(this.previous, current);
    this.previous = current;
    const result: RelistResult = { events, durationMs: performance.now() - startedMs };
    const pods = [...podsByUid.values()].sort((a, b) => a.uid.localeCompare(b.uid));
    const podsKey = pods.map((p) => `${p.uid}:${p.active ? 1 : 0}`).join(',');
    if (podsKey !== this.previousPodsKey) {
      this.previousPodsKey = podsKey;
      result.runtimePods = pods;
    }
    return result;
  }
}
