// The kubelet's node lease controller, as component-helpers' lease controller
// runs it for the kubelet: renew kube-node-lease/<node> every
// leaseDuration × 0.25 (jittered, counted from the end of the last renewal),
// optimistically from the last lease written so that a healthy node costs one
// PUT per renewal and no GET; a conflict re-reads the lease and tries again; a
// missing lease is created, but only once the Node's UID is known so that the
// lease is owned by the Node (setNodeOwnerFunc); get-or-create backs off from
// 200 ms to 7 s while the API server is away.
import { setTimeout as sleep } from 'node:timers/promises';
import type { V1Lease } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { ErrorCodes } from '../../../shared/errors.js';
import type { KubeClients } from '../apiclient/kube-client.js';
import {
  LEASE_MAX_UPDATE_RETRIES,
  NODE_LEASE_NAMESPACE,
  jitteredRenewIntervalMs,
  leaseEnsureBackoffMs,
  newLease,
  renewedLease,
} from './lease.js';
import { httpStatusOf } from '../apiclient/api-errors.js';

export interface NodeLeaseControllerConfig {
  clients: KubeClients;
  nodeName: string;
  leaseDurationSeconds: number;
  logger: Logger;
  /** The registered Node's UID, undefined until it is known (the node status manager's nodeUid()). */
  nodeUid: () => string | undefined;
}

interface EnsuredLease {
  lease: V1Lease;
  created: boolean;
}

/** Thrown instead of creating an unowned lease, as setNodeOwnerFunc's error blocks the create. */
class NodeUidUnknownError extends Error {
  override name = 'NodeUidUnknownError';
}


export class NodeLeaseController {
  /** Lease writes made, for the write-count figures. */
  readonly writes = { leaseCreates: 0, leaseUpdates: 0 };
  private latestLease?: V1Lease;
  private readonly abort = new AbortController();
  /** True from the first failure until the next success: one warning per failure streak. */
  private failing = false;

  constructor(private readonly config: NodeLeaseControllerConfig) {}

  /** Starts renewing in the background; never throws. */
  start(): void {
    void this.run();
  }

  /** Stops renewing; a call in flight completes but nothing follows it. */
  stop(): void {
    this.abort.abort();
  }

  private get stopped(): boolean {
    return this.abort.signal.aborted;
  }

  /** wait.JitterUntil with sliding = true: sync, then wait a jittered interval. */
  private async run(): Promise<void> {
    while (!this.stopped) {
      try {
        await this.sync();
      } catch (err) {
        this.config.logger.error({ code: ErrorCodes.INTERNAL, err: (err as Error).message }, 'Node lease sync failed unexpectedly');
      }
      if (!(await this.wait(jitteredRenewIntervalMs(this.config.leaseDurationSeconds)))) return;
    }
  }

  /** Resolves false when stopped during the wait. */
  private async wait(delayMs: number): Promise<boolean> {
    try {
      await sleep(delayMs, undefined, { signal: this.abort.signal });
      return true;
    } catch {
      return false;
    }
  }

  /** controller.sync: update from the last lease written, else get-or-create and update. */
  private async sync(): Promise<void> {
    if (this.latestLease && (await this.retryUpdateLease(this.latestLease))) return;
    const ensured = await this.backoffEnsureLease();
    if (!ensured) return;
    this.latestLease = ensured.lease;
    // A lease just created carries a fresh renewTime already.
    if (!ensured.created) await this.retryUpdateLease(ensured.lease);
  }

  /** backoffEnsureLease: get or create until it works; undefined only when stopped. */
  private async backoffEnsureLease(): Promise<EnsuredLease | undefined> {
    for (let attempt = 0; !this.stopped; attempt++) {
      try {
        const ensured = await this.ensureLease();
        this.recovered();
        return ensured;
      } catch (err) {
        this.failed(err, 'get or create the node lease');
        if (!(await this.wait(leaseEnsureBackoffMs(attempt)))) return undefined;
      }
    }
    return undefined;
  }

  /** ensureLease: the stored lease, or a new one owned by the Node. */
  private async ensureLease(): Promise<EnsuredLease> {
    const { clients, nodeName, leaseDurationSeconds } = this.config;
    try {
      const lease = await clients.coordination.readNamespacedLease({ name: nodeName, namespace: NODE_LEASE_NAMESPACE });
      return { lease, created: false };
    } catch (err) {
      if (httpStatusOf(err) !== 404) throw err;
    }
    const nodeUid = this.config.nodeUid();
    if (!nodeUid) throw new NodeUidUnknownError(`node ${nodeName} is not registered yet; its lease is created once the Node's UID is known`);
    await clients.limiter.take();
    const lease = await clients.coordination.createNamespacedLease({
      namespace: NODE_LEASE_NAMESPACE,
      body: newLease(nodeName, leaseDurationSeconds, new Date(), nodeUid),
    });
    this.writes.leaseCreates += 1;
    return { lease, created: true };
  }

  /**
   * retryUpdateLease: up to LEASE_MAX_UPDATE_RETRIES immediate PUTs; after a
   * conflict the next one starts from the lease as stored. True when renewed.
   */
  private async retryUpdateLease(base: V1Lease): Promise<boolean> {
    const { clients, nodeName } = this.config;
    let current = base;
    for (let attempt = 0; attempt < LEASE_MAX_UPDATE_RETRIES && !this.stopped; attempt++) {
      try {
        await clients.limiter.take();
        this.latestLease = await clients.coordination.replaceNamespacedLease({
          name: nodeName,
          namespace: NODE_LEASE_NAMESPACE,
          body: renewedLease(current, new Date(), nodeName, this.config.nodeUid()),
        });
        this.writes.leaseUpdates += 1;
        this.recovered();
        return true;
      } catch (err) {
        this.failed(err, 'renew the node lease');
        const status = httpStatusOf(err);
        // Gone: retrying the same PUT cannot work; sync falls back to get-or-create.
        if (status === 404) return false;
        if (status !== 409) continue;
        const ensured = await this.backoffEnsureLease();
        if (!ensured) return false;
        current = ensured.lease;
      }
    }
    return false;
  }

  private failed(err: unknown, action: string): void {
    const message = (err as Error)?.message ?? String(err);
    const status = httpStatusOf(err);
    // Expected on the way to a renewal (not registered yet, lease deleted, concurrent writer): not an outage.
    if (err instanceof NodeUidUnknownError || status === 404 || status === 409) {
      this.config.logger.debug({ node: this.config.nodeName, err: message }, `Could not ${action}; retrying`);
      return;
    }
    if (this.failing) {
      this.config.logger.debug({ node: this.config.nodeName, err: message }, `Could not ${action}; retrying`);
      return;
    }
    this.failing = true;
    this.config.logger.warn(
      { code: ErrorCodes.API_UNAVAILABLE, node: this.config.nodeName, err: message },
      `Could not ${action}; retrying with backoff`,
    );
  }

  private recovered(): void {
    if (!this.failing) return;
    this.failing = false;
    this.config.logger.info({ node: this.config.nodeName }, 'Node lease renewed again');
  }
}
