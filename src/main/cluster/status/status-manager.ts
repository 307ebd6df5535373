// Upstream's status manager for API pods: the latest status of each pod is patched
// to the API server (pods/status, strategic merge patch with the UID as
// precondition), coalesced per pod so that only the newest status goes out,
// rate-limited by kubeAPIQPS / kubeAPIBurst; a pod whose graceful deletion has
// finished on the node is then deleted from the API server (grace 0, UID
// precondition), as upstream's canBeDeleted / DeletePod. A status the server
// already holds (isPodStatusByKubeletEqual) is not sent again. While the API
// server is away the writes wait with a jittered exponential backoff, and the
// outage is logged twice: once when it starts, once when it ends.
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { Backoff } from '../../../shared/backoff.js';
import { ErrorCodes } from '../../../shared/errors.js';
import type { Pod, PodStatus } from '../../../shared/types.js';
import type { KubeClients } from '../apiclient/kube-client.js';
import { httpStatusOf } from '../apiclient/api-errors.js';
import { isPodStatusByKubeletEqual, podStatusPatch } from '../../status/status-equality.js';

/** First retry of a failed write. */
export const STATUS_RETRY_INITIAL_MS = 500;
/** Upstream's status manager resends every pod's status each syncPeriod (10 s): no write waits longer. */
export const STATUS_RETRY_MAX_MS = 10_000;

interface PendingWrite {
  pod: Pod;
  status?: PodStatus;
  deletePod?: boolean;
}

export interface StatusManagerOptions {
  /** Retry backoff; tests shorten it. */
  backoff?: Backoff;
}

export class StatusManager {
  private readonly pendingByUid = new Map<string, PendingWrite>();
  /** The status the API server holds for each pod, as far as this kubelet knows: the base of the next patch. */
  private readonly serverStatusByUid = new Map<string, PodStatus>();
  private readonly retryBackoff: Backoff;
  /** The outage under way, if any: when it began and the pods whose writes waited. */
  private outage?: { sinceMs: number; waitingUids: Set<string> };
  private draining = false;
  private stopped = false;
  private wakeUp?: () => void;
  /** API writes made, by kind, for the bench and the write count. */
  readonly writes = { statusPatches: 0, podDeletes: 0 };

  constructor(
    private readonly clients: KubeClients,
    private readonly logger: Logger,
    options: StatusManagerOptions = {},
  ) {
    this.retryBackoff = options.backoff ?? new Backoff({ initialMs: STATUS_RETRY_INITIAL_MS, maxMs: STATUS_RETRY_MAX_MS });
  }

  /** Records a pod's newest status; only the latest one per pod is sent. */
  setPodStatus(pod: Pod, status: PodStatus): void {
    const uid = pod.metadata?.uid ?? '';
    const pending = this.pendingByUid.get(uid);
    this.pendingByUid.set(uid, { ...pending, pod, status });
    this.outage?.waitingUids.add(uid);
    this.drain();
  }

  /** The pod's containers are gone after a graceful deletion: remove it from the API server. */
  podTerminated(pod: Pod): void {
    if (!pod.metadata?.deletionTimestamp) return;
    const uid = pod.metadata.uid ?? '';
    this.pendingByUid.set(uid, { ...this.pendingByUid.get(uid), pod, deletePod: true });
    this.outage?.waitingUids.add(uid);
    this.drain();
  }

  /** The kubelet is done with a pod: forget what the server held for it. */
  forget(uid: string): void {
    this.serverStatusByUid.delete(uid);
  }

  /** Pods with a write waiting (for tests and the summary). */
  get pendingWrites(): number {
    return this.pendingByUid.size;
  }

  stop(): void {
    this.stopped = true;
    this.wakeUp?.();
  }

  private drain(): void {
    if (this.draining || this.stopped) return;
    this.draining = true;
    void this.drainLoop().finally(() => {
      this.draining = false;
    });
  }

  private async drainLoop(): Promise<void> {
    while (!this.stopped && this.pendingByUid.size > 0) {
      const [uid, write] = this.pendingByUid.entries().next().value as [string, PendingWrite];
      this.pendingByUid.delete(uid);
      try {
        // A write with nothing new makes no request, so it says nothing about the server.
        if (await this.send(uid, write)) this.recovered();
      } catch (err) {
        const code = httpStatusOf(err);
        // The pod is gone or was replaced: its status no longer matters.
        if (code === 404 || code === 409) {
          this.serverStatusByUid.delete(uid);
          this.recovered(); // the server answered
          continue;
        }
        if (!this.pendingByUid.has(uid)) this.pendingByUid.set(uid, write);
        this.failed(uid, err);
        await this.sleep(this.retryBackoff.next());
      }
    }
  }

  /** Sends what the server lacks; false when that was nothing. */
  private async send(uid: string, write: PendingWrite): Promise<boolean> {
    const name = write.pod.metadata?.name ?? '';
    const namespace = write.pod.metadata?.namespace ?? 'default';
    const serverStatus = this.serverStatusByUid.get(uid) ?? write.pod.status ?? {};
    let sent = false;
    if (write.status && !isPodStatusByKubeletEqual(serverStatus, write.status)) {
      sent = true;
      await this.clients.limiter.take();
      const body = podStatusPatch(uid, serverStatus, write.status);
      await this.clients.core.patchNamespacedPodStatus(
        { name, namespace, body },
        setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
      );
      this.serverStatusByUid.set(uid, write.status);
      this.writes.statusPatches++;
    }
    if (write.deletePod) {
      sent = true;
      await this.clients.limiter.take();
      await this.clients.core.deleteNamespacedPod({ name, namespace, gracePeriodSeconds: 0, body: { preconditions: { uid } } });
      this.serverStatusByUid.delete(uid);
      this.writes.podDeletes++;
      this.logger.info({ pod: `${namespace}/${name}`, uid }, 'Deleted pod from the API server after graceful termination');
    }
    return sent;
  }

  /** The first failure of an outage is logged; the others only wait. */
  private failed(uid: string, err: unknown): void {
    if (this.outage) {
      this.outage.waitingUids.add(uid);
      return;
    }
    this.outage = { sinceMs: Date.now(), waitingUids: new Set([uid, ...this.pendingByUid.keys()]) };
    this.logger.warn(
      { code: ErrorCodes.API_UNAVAILABLE, uid, err: (err as Error).message },
      'Pod status writes are failing; retrying with backoff until the API server answers',
    );
  }

  private recovered(): void {
    this.retryBackoff.reset();
    if (!this.outage) return;
    const { sinceMs, waitingUids } = this.outage;
    this.outage = undefined;
    this.logger.info(
      { podsWaited: waitingUids.size, outageMs: Date.now() - sinceMs },
      'Pod status writes work again; the writes that waited are being sent',
    );
  }

  /** A retry wait that stop() cuts short. */
  private sleep(delayMs: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, delayMs);
      this.wakeUp = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}
