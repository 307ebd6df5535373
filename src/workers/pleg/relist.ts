// Upstream's generic PLEG relist, run off the main thread: every relist period it
// lists every sandbox and container (the decode is the costly part, hence the worker
// thread), diffs against what it remembers and hands the main thread only the
// small list of events and, when it changed, the set of pods present in the runtime.
// A container event (evented PLEG) asks for one pod's relist instead: the same lean
// lists filtered by the pod's UID label, through the same memory (RelistState), so
// the full relist after it does not report the pod's changes twice.
import type { CriClient } from '../../shared/cri/client.js';
import type { RelistContainer, RelistSandbox } from '../../shared/cri/relist-codec.js';
import type { RelistSnapshot } from '../../shared/pleg/relist-diff.js';
import { RelistState, type PodSnapshots } from '../../shared/pleg/relist-state.js';
import type { RelistResult, RuntimeCounts, RuntimePodRef } from '../../shared/shard-protocol.js';

export class Relister {
  private readonly state = new RelistState();
  private previousPodsKey = '';

  /**
   * `onResult` sees each result as it is applied, before anything else can be
   * applied after it: whoever passes results on in that order keeps each pod's
   * events in order.
   */
  constructor(
    private readonly cri: CriClient,
    private readonly onResult?: (result: RelistResult) => void,
  ) {}

  /** The periodic full relist. */
  async relist(): Promise<RelistResult> {
    const seq = this.state.begin();
    const startedAtMs = Date.now();
    const startedAt = performance.now();
    const [sandboxes, containers] = await Promise.all([this.cri.listPodSandboxForRelist(), this.cri.listContainersForRelist()]);
    const current: PodSnapshots = new Map();
    const podsByUid = new Map<string, RuntimePodRef>();
    const readyPods = new Set<string>();
    const counts: RuntimeCounts = { podsWithReadySandbox: 0, containersByState: { created: 0, running: 0, exited: 0, unknown: 0 } };
    for (const sandbox of sandboxes) {
      const uid = sandbox.podUid;
      if (!uid) continue;
      if (sandbox.ready) readyPods.add(uid);
      addSandbox(current, sandbox);
      const ref = podsByUid.get(uid) ?? { uid, name: sandbox.podName, namespace: sandbox.podNamespace, active: false };
      ref.active ||= sandbox.ready;
      podsByUid.set(uid, ref);
    }
    for (const container of containers) {
      const uid = container.podUid;
      if (!uid) continue;
      counts.containersByState[container.state]++;
      addContainer(current, container);
      const ref = podsByUid.get(uid);
      if (ref && container.state === 'running') ref.active = true;
    }
    const events = this.state.applyFull(seq, current);
    counts.podsWithReadySandbox = readyPods.size;
    const result: RelistResult = { events, startedAtMs, durationMs: performance.now() - startedAt, counts };
    const pods = [...podsByUid.values()].sort((a, b) => a.uid.localeCompare(b.uid));
    const podsKey = pods.map((p) => `${p.uid}:${p.active ? 1 : 0}`).join(',');
    if (podsKey !== this.previousPodsKey) {
      this.previousPodsKey = podsKey;
      result.runtimePods = pods;
    }
    this.onResult?.(result);
    return result;
  }

  /** One pod's relist, as a container event of that pod asks for: its events only. */
  async relistPod(podUid: string): Promise<RelistResult> {
    const seq = this.state.begin();
    const startedAtMs = Date.now();
    const startedAt = performance.now();
    const [sandboxes, containers] = await this.cri.listPodForRelist(podUid);
    const current: PodSnapshots = new Map();
    // The label selector already chose the pod; the check keeps a runtime that ignores filters from mixing pods up.
    for (const sandbox of sandboxes) if (sandbox.podUid === podUid) addSandbox(current, sandbox);
    for (const container of containers) if (container.podUid === podUid) addContainer(current, container);
    const events = this.state.applyPod(seq, podUid, current.get(podUid) ?? new Map());
    const result: RelistResult = { events, startedAtMs, durationMs: performance.now() - startedAt, podUid };
    this.onResult?.(result);
    return result;
  }
}

function objectsOfPod(snapshots: PodSnapshots, uid: string): RelistSnapshot {
  let objects = snapshots.get(uid);
  if (!objects) {
    objects = new Map();
    snapshots.set(uid, objects);
  }
  return objects;
}

function addSandbox(snapshots: PodSnapshots, sandbox: RelistSandbox): void {
  objectsOfPod(snapshots, sandbox.podUid).set(sandbox.id, { podUid: sandbox.podUid, kind: 'sandbox', state: sandbox.ready ? 'running' : 'exited' });
}

function addContainer(snapshots: PodSnapshots, container: RelistContainer): void {
  objectsOfPod(snapshots, container.podUid).set(container.id, { podUid: container.podUid, kind: 'container', state: container.state });
}
