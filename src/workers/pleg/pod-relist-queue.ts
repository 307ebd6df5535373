// The per-pod relists container events ask for. Events come in bursts (a pod's
// start is sandbox created and started, then each container created and started),
// so requests are gathered until the I/O that brought them is handled, and each
// pod has at most one relist in flight: events that arrive meanwhile make one more
// after it, which sees everything they announced.

export class PodRelistQueue {
  /** Pods asked for since the last flush. */
  private readonly pending = new Set<string>();
  private readonly inFlight = new Set<string>();
  /** Pods asked for again while their relist was in flight. */
  private readonly again = new Set<string>();
  private flushScheduled = false;
  private idleWaiters: Array<() => void> = [];

  /** `relistPod` must not reject: a failed relist is the caller's to count and log. */
  constructor(private readonly relistPod: (podUid: string) => Promise<void>) {}

  request(podUid: string): void {
    if (this.inFlight.has(podUid)) {
      this.again.add(podUid);
      return;
    }
    this.pending.add(podUid);
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => this.flush());
  }

  /** Resolves once no relist is asked for or in flight. */
  idle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private flush(): void {
    this.flushScheduled = false;
    for (const podUid of this.pending) {
      this.inFlight.add(podUid);
      void this.run(podUid);
    }
    this.pending.clear();
  }

  private async run(podUid: string): Promise<void> {
    do {
      this.again.delete(podUid);
      await this.relistPod(podUid);
    } while (this.again.has(podUid));
    this.inFlight.delete(podUid);
    if (this.isIdle()) this.wakeIdleWaiters();
  }

  private isIdle(): boolean {
    return this.pending.size === 0 && this.inFlight.size === 0;
  }

  private wakeIdleWaiters(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }
}
