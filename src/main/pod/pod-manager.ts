// The pods the kubelet should run, as the config merge last said: upstream's
// basicPodManager, by UID. Mirror pods (the API server's copies of
// static pods) are kept apart: they are never run.
import { podFullName, podUid, type Pod } from '../../shared/types.js';

export class PodManager {
  private readonly podsByUid = new Map<string, Pod>();
  private readonly mirrorPodsByFullName = new Map<string, Pod>();
  private readonly listeners: Array<(uid: string) => void> = [];

  /** Called with a pod's UID after it was added, replaced or removed (mirror pods aside). */
  onChange(listener: (uid: string) => void): void {
    this.listeners.push(listener);
  }

  addOrUpdateMirror(pod: Pod): void {
    this.mirrorPodsByFullName.set(podFullName(pod), pod);
  }

  removeMirror(pod: Pod): void {
    if (this.mirrorPodsByFullName.get(podFullName(pod))?.metadata?.uid === podUid(pod)) {
      this.mirrorPodsByFullName.delete(podFullName(pod));
    }
  }

  mirrorOf(fullName: string): Pod | undefined {
    return this.mirrorPodsByFullName.get(fullName);
  }

  mirrorPods(): Pod[] {
    return [...this.mirrorPodsByFullName.values()];
  }

  addOrUpdate(pod: Pod): void {
    const uid = podUid(pod);
    this.podsByUid.set(uid, pod);
    for (const listener of this.listeners) listener(uid);
  }

  remove(pod: Pod): void {
    const uid = podUid(pod);
    if (!this.podsByUid.delete(uid)) return;
    for (const listener of this.listeners) listener(uid);
  }

  get(uid: string): Pod | undefined {
    return this.podsByUid.get(uid);
  }

  /** A pod by namespace and name, as upstream's GetPodByName (the kubelet API's lookups); a scan: requests are rare. */
  getByName(namespace: string, name: string): Pod | undefined {
    for (const pod of this.podsByUid.values()) {
      if (pod.metadata?.name === name && (pod.metadata?.namespace ?? 'default') === namespace) return pod;
    }
    return undefined;
  }

  pods(): Pod[] {
    return [...this.podsByUid.values()];
  }

  get size(): number {
    return this.podsByUid.size;
  }
}
