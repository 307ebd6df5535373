// The node Lease in kube-node-lease, as the kubelet's node lease controller
// (component-helpers' lease controller with the kubelet's setNodeOwnerFunc)
// builds and renews it: named after the node, holderIdentity = node name,
// leaseDurationSeconds, renewTime as a MicroTime, owned by the Node so it goes
// when the Node is deleted. Timing and retry constants are upstream's.
import { V1MicroTime, type V1Lease, type V1OwnerReference } from '@kubernetes/client-node';
import { exponentialDelayMs, jitterMs } from '../../../shared/backoff.js';

export const NODE_LEASE_NAMESPACE = 'kube-node-lease';
/** Renew every leaseDuration × 0.25 (nodelease renewIntervalFraction). */
export const RENEW_INTERVAL_FRACTION = 0.25;
/** wait.JitterUntil's factor for the renew loop: each wait is interval × (1 + rand × 0.04). */
export const RENEW_JITTER_FACTOR = 0.04;
/** Immediate, successive update attempts before waiting for the next renew interval (maxUpdateRetries). */
export const LEASE_MAX_UPDATE_RETRIES = 5;
/** backoffEnsureLease starts from 100 ms and doubles before each wait, so the first wait is 200 ms. */
export const LEASE_INITIAL_BACKOFF_MS = 100;
/** Longest wait between attempts to get or create the lease (maxBackoff). */
export const LEASE_MAX_BACKOFF_MS = 7_000;

/** The renew period for a lease duration: 40 s → 10 s. */
export function renewIntervalMs(leaseDurationSeconds: number): number {
  return leaseDurationSeconds * 1000 * RENEW_INTERVAL_FRACTION;
}

/** One jittered wait of the renew loop. */
export function jitteredRenewIntervalMs(leaseDurationSeconds: number, random: () => number = Math.random): number {
  return jitterMs(renewIntervalMs(leaseDurationSeconds), RENEW_JITTER_FACTOR, random);
}

/** Wait after failed get-or-create attempt `attempt` (0-based): 200 ms, 400 ms, … capped at 7 s. */
export function leaseEnsureBackoffMs(attempt: number): number {
  return exponentialDelayMs(Math.max(0, attempt) + 1, { initialMs: LEASE_INITIAL_BACKOFF_MS, multiplier: 2, maxMs: LEASE_MAX_BACKOFF_MS });
}

/** "2024-05-01T10:00:00.123000Z": a MicroTime on the wire (Date keeps milliseconds only). */
export function formatMicroTime(time: Date): string {
  return new V1MicroTime(time.getTime()).toISOString();
}

/** The owner reference to the Node (setNodeOwnerFunc): apiVersion v1, kind Node, the node's UID. */
function nodeOwnerReference(nodeName: string, nodeUid: string): V1OwnerReference {
  return { apiVersion: 'v1', kind: 'Node', name: nodeName, uid: nodeUid };
}

/**
 * A new lease for the node. Upstream does not create the lease until the
 * Node's UID is known (setNodeOwnerFunc's error blocks the create): callers
 * should pass ownerNodeUid for a create. renewTime is a V1MicroTime, which
 * JSON-serialises with six fractional digits as the API requires.
 */
export function newLease(nodeName: string, leaseDurationSeconds: number, now: Date, ownerNodeUid?: string): V1Lease {
  const lease: V1Lease = {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name: nodeName, namespace: NODE_LEASE_NAMESPACE },
    spec: {
      holderIdentity: nodeName,
      leaseDurationSeconds,
      renewTime: new V1MicroTime(now.getTime()),
    },
  };
  if (ownerNodeUid) lease.metadata!.ownerReferences = [nodeOwnerReference(nodeName, ownerNodeUid)];
  return lease;
}

/**
 * The update of an existing lease (newLease with a base): a copy with renewTime
 * = now, and the owner reference added when the lease has none yet and the
 * Node's UID is known. resourceVersion is kept, so a concurrent writer gets a
 * conflict (upstream then re-reads the lease and retries).
 */
export function renewedLease(base: V1Lease, now: Date, nodeName: string, ownerNodeUid?: string): V1Lease {
  const lease: V1Lease = {
    ...base,
    metadata: { ...base.metadata },
    spec: { ...base.spec, renewTime: new V1MicroTime(now.getTime()) },
  };
  if ((lease.metadata!.ownerReferences ?? []).length === 0 && ownerNodeUid) {
    lease.metadata!.ownerReferences = [nodeOwnerReference(nodeName, ownerNodeUid)];
  }
  return lease;
}
