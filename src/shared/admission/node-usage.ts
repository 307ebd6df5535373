// What the pods admission counts against the node already use: their number, the sum
// of their requests and the host ports they hold, as upstream's NodeInfo aggregates
// them (framework.NodeInfo.AddPod / RemovePod: Requested, UsedPorts). NodeUsageLedger
// keeps the sums as pods come and go, so that admitting a pod costs the same at 500
// pods as at 5; usageOfPods counts a list from scratch (tests, one-off checks).
// Requests are whole millicores and bytes, so the sums stay exact (below 2^53).
import type { Pod } from '../types.js';
import { DEFAULT_HOST_IP, podHostPorts, type HostPort } from './host-ports.js';
import { emptyResources, podRequests, type ResourceVector } from './pod-requests.js';

/** The node as admission sees it before the candidate pod. */
export interface NodeUsage {
  /** Pods counted against maxPods. */
  pods: number;
  /** Their summed requests (a pod whose quantities do not parse counts 0). */
  requested: ResourceVector;
  /** As HostPortInfo.CheckConflict: whether a counted pod holds this port (0.0.0.0 clashes with any address). */
  hostPortTaken(port: HostPort): boolean;
}

/** What one counted pod adds to the node's usage. */
interface PodUsage {
  pod: Pod;
  requests: ResourceVector;
  hostPorts: HostPort[];
}

/** Host ports are kept by protocol and port, then by host IP with how many pods hold that address. */
function portKey(port: HostPort): string {
  return `${port.protocol}/${port.port}`;
}

/** A pod's requests, or nothing for one whose quantities do not parse: it was admitted already, one bad manifest must not block every later admission. */
function requestsOrNothing(pod: Pod): ResourceVector {
  try {
    return podRequests(pod);
  } catch {
    return emptyResources();
  }
}

function usageOfPod(pod: Pod): PodUsage {
  return { pod, requests: requestsOrNothing(pod), hostPorts: podHostPorts(pod) };
}

function addInto(sums: ResourceVector, amount: ResourceVector, sign: 1 | -1): void {
  sums.cpuMillis += sign * amount.cpuMillis;
  sums.memoryBytes += sign * amount.memoryBytes;
  sums.ephemeralStorageBytes += sign * amount.ephemeralStorageBytes;
}

export class NodeUsageLedger {
  private readonly usageByUid = new Map<string, PodUsage>();
  private readonly requested = emptyResources();
  /** protocol/port → host IP → pods holding it. */
  private readonly holdersByPort = new Map<string, Map<string, number>>();

  /** Counts `pod` under its UID (replacing what the UID counted before), or stops counting the UID. */
  set(uid: string, pod: Pod | undefined): void {
    const current = this.usageByUid.get(uid);
    if (current?.pod === pod) return;
    if (current) this.apply(current, -1);
    if (!pod) {
      this.usageByUid.delete(uid);
      return;
    }
    const usage = usageOfPod(pod);
    this.usageByUid.set(uid, usage);
    this.apply(usage, 1);
  }

  /** The pod counted under this UID, if any. */
  get(uid: string): Pod | undefined {
    return this.usageByUid.get(uid)?.pod;
  }

  get size(): number {
    return this.usageByUid.size;
  }

  /** The usage of every counted pod but `excludedUid` (the candidate itself, if it is counted). */
  usage(excludedUid?: string): NodeUsage {
    const excluded = excludedUid === undefined ? undefined : this.usageByUid.get(excludedUid);
    const requested = { ...this.requested };
    if (excluded) addInto(requested, excluded.requests, -1);
    return {
      pods: this.usageByUid.size - (excluded ? 1 : 0),
      requested,
      hostPortTaken: (port) => this.portTaken(port, excluded?.hostPorts ?? []),
    };
  }

  private apply(usage: PodUsage, sign: 1 | -1): void {
    addInto(this.requested, usage.requests, sign);
    for (const port of usage.hostPorts) {
      const key = portKey(port);
      const holders = this.holdersByPort.get(key) ?? new Map<string, number>();
      const count = (holders.get(port.hostIP) ?? 0) + sign;
      if (count > 0) holders.set(port.hostIP, count);
      else holders.delete(port.hostIP);
      if (holders.size > 0) this.holdersByPort.set(key, holders);
      else this.holdersByPort.delete(key);
    }
  }

  private portTaken(wanted: HostPort, excludedPorts: readonly HostPort[]): boolean {
    const key = portKey(wanted);
    const holders = this.holdersByPort.get(key);
    if (!holders) return false;
    const heldBy = (hostIP: string): number =>
      (holders.get(hostIP) ?? 0) - excludedPorts.filter((port) => portKey(port) === key && port.hostIP === hostIP).length;
    if (wanted.hostIP === DEFAULT_HOST_IP) return [...holders.keys()].some((hostIP) => heldBy(hostIP) > 0);
    return heldBy(wanted.hostIP) > 0 || heldBy(DEFAULT_HOST_IP) > 0;
  }
}

/** The usage of `pods`, every entry counted once, from scratch. */
export function usageOfPods(pods: readonly Pod[]): NodeUsage {
  const ledger = new NodeUsageLedger();
  pods.forEach((pod, index) => ledger.set(String(index), pod));
  return ledger.usage();
}
