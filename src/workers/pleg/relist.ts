// Upstream's generic PLEG relist, run off the main thread: every relist period it
// lists every sandbox and container (the decode is the costly part, hence the worker
// thread), diffs against the previous relist and hands the main thread only the
// small list of events and, when it changed, the set of pods present in the runtime.
import type { CriClient } from '../../shared/cri/client.js';
import { diffSnapshots, type RelistSnapshot } from '../../shared/pleg/relist-diff.js';
import type { RelistResult, RuntimeCounts, RuntimePodRef } from '../../shared/shard-protocol.js';

export class Relister {
  private previous: RelistSnapshot = new Map();
  private previousPodsKey = '';

  constructor(private readonly cri: CriClient) {}

  async relist(): Promise<RelistResult> {
    const startedAtMs = Date.now();
    const startedAt = performance.now();
    const [sandboxes, containers] = await Promise.all([this.cri.listPodSandboxForRelist(), this.cri.listContainersForRelist()]);
    const current: RelistSnapshot = new Map();
    const podsByUid = new Map<string, RuntimePodRef>();
    const readyPods = new Set<string>();
    const counts: RuntimeCounts = { podsWithReadySandbox: 0, containersByState: { created: 0, running: 0, exited: 0, unknown: 0 } };
    for (const sandbox of sandboxes) {
      const uid = sandbox.podUid;
      if (!uid) continue;
      if (sandbox.ready) readyPods.add(uid);
      current.set(sandbox.id, { podUid: uid, kind: 'sandbox', state: sandbox.ready ? 'running' : 'exited' });
      const ref = podsByUid.get(uid) ?? { uid, name: sandbox.podName, namespace: sandbox.podNamespace, active: false };
      ref.active ||= sandbox.ready;
      podsByUid.set(uid, ref);
    }
    for (const container of containers) {
      const uid = container.podUid;
      if (!uid) continue;
      const state = container.state;
      counts.containersByState[state]++;
      current.set(container.id, { podUid: uid, kind: 'container', state });
      const ref = podsByUid.get(uid);
      if (ref && state === 'running') ref.active = true;
    }
    const events = diffSnapshots(this.previous, current);
    this.previous = current;
    counts.podsWithReadySandbox = readyPods.size;
    const result: RelistResult = { events, startedAtMs, durationMs: performance.now() - startedAt, counts };
    const pods = [...podsByUid.values()].sort((a, b) => a.uid.localeCompare(b.uid));
    const podsKey = pods.map((p) => `${p.uid}:${p.active ? 1 : 0}`).join(',');
    if (podsKey !== this.previousPodsKey) {
      this.previousPodsKey = podsKey;
      result.runtimePods = pods;
    }
    return result;
  }
}
