// The pods the kubelet should run, as the config merge last said: upstream's
// basicPodManager, by UID and by full name.
import { podFullName, podUid, type Pod } from '../../shared/types.js';

export class PodManager {
  private readonly podsByUid = new Map<string, Pod>();
  private readonly uidByFullName = new Map<string, string>();

  addOrUpdate(pod: Pod): void {
    this.podsByUid.set(podUid(pod), pod);
    this.uidByFullName.set(podFullName(pod), podUid(pod));
  }

  remove(pod: Pod): void {
    const uid = podUid(pod);
    this.podsByUid.delete(uid);
    if (this.uidByFullName.get(podFullName(pod)) === uid) this.uidByFullName.delete(podFullName(pod));
  }

  get(uid: string): Pod | undefined {
    return this.podsByUid.get(uid);
  }

  getByFullName(fullName: string): Pod | undefined {
    const uid = this.uidByFullName.get(fullName);
    return uid === undefined ? undefined : this.podsByUid.get(uid);
  }

  pods(): Pod[] {
    return [...this.podsByUid.values()];
  }

  get size(): number {
    return this.podsByUid.size;
  }
}
