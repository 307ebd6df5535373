// Node capacity and allocatable, as upstream computes them: capacity from the
// machine (cadvisor.CapacityFromMachineInfo plus pods from maxPods/podsPerCore),
// the reservation as the container manager's GetNodeAllocatableReservation
// (systemReserved + kubeReserved + the hard eviction thresholds on
// memory.available and nodefs.available), and allocatable as the MachineInfo
// setter subtracts it: never below zero, huge pages taken out of memory.
import type { KubeletOptions } from '../options/kubelet-options.js';
import type { MachineInfo } from './machine-info.js';
import { formatBinary, formatResource, resourceAmount } from './quantity-format.js';

/** A v1 ResourceList: resource name → canonical quantity string. */
export type ResourceList = Record<string, string>;

const BYTES_PER_KIB = 1024;

/** Eviction signals that reserve capacity, and the resource each one reserves (hardEvictionReservation). */
const EVICTION_SIGNAL_RESOURCE: Record<string, string> = {
  'memory.available': 'memory',
  'nodefs.available': 'ephemeral-storage',
};

/** "hugepages-2Mi" for a 2048 KiB page, as v1helper names huge page resources. */
export function hugePageResourceName(pageSizeKiB: number): string {
  return `hugepages-${formatBinary(pageSizeKiB * BYTES_PER_KIB)}`;
}

/** pods = maxPods, or min(cores × podsPerCore, maxPods) when podsPerCore > 0 (MachineInfo setter). */
export function podCapacity(numCores: number, maxPods: number, podsPerCore: number): number {
  return podsPerCore > 0 ? Math.min(numCores * podsPerCore, maxPods) : maxPods;
}

/** The node's capacity from the machine and the pod limits. */
export function nodeCapacity(
  machine: MachineInfo,
  options: Pick<KubeletOptions, 'maxPods' | 'podsPerCore'>,
): ResourceList {
  const capacity: ResourceList = {
    cpu: formatResource('cpu', machine.numCores * 1000),
    memory: formatResource('memory', machine.memoryCapacityBytes),
  };
  for (const pool of machine.hugePages) {
    capacity[hugePageResourceName(pool.pageSizeKiB)] = formatBinary(pool.numPages * pool.pageSizeKiB * BYTES_PER_KIB);
  }
  capacity['ephemeral-storage'] = formatResource('ephemeral-storage', machine.ephemeralStorageCapacityBytes);
  capacity.pods = formatResource('pods', podCapacity(machine.numCores, options.maxPods, options.podsPerCore));
  return capacity;
}

/**
 * A percentage threshold ("10%") as the eviction manager's parsePercentage
 * holds it: a float32, so 10% of a capacity is truncated exactly as upstream.
 */
export function parseThresholdPercentage(value: string): number | undefined {
  if (!value.endsWith('%')) return undefined;
  const percent = Number(value.slice(0, -1));
  if (!Number.isFinite(percent)) return undefined;
  return Math.fround(Math.fround(percent) / 100);
}

/** What a hard eviction threshold reserves of a capacity (GetThresholdQuantity), in whole units. */
export function thresholdAmount(resourceName: string, threshold: string, capacityAmount: number): number {
  const fraction = parseThresholdPercentage(threshold.trim());
  if (fraction !== undefined) return Math.trunc(capacityAmount * fraction);
  return resourceAmount(resourceName, threshold.trim());
}

/** Amounts (millicores for cpu, whole units otherwise) reserved per resource present in capacity. */
export function nodeAllocatableReservation(
  capacity: ResourceList,
  options: Pick<KubeletOptions, 'systemReserved' | 'kubeReserved' | 'evictionHard'>,
): Record<string, number> {
  const reservation: Record<string, number> = {};
  const evictionByResource: Record<string, string> = {};
  for (const [signal, threshold] of Object.entries(options.evictionHard)) {
    const resourceName = EVICTION_SIGNAL_RESOURCE[signal];
    if (resourceName) evictionByResource[resourceName] = threshold;
  }
  for (const [resourceName, quantity] of Object.entries(capacity)) {
    let reserved = 0;
    const systemReserved = options.systemReserved[resourceName];
    const kubeReserved = options.kubeReserved[resourceName];
    if (systemReserved !== undefined) reserved += resourceAmount(resourceName, systemReserved);
    if (kubeReserved !== undefined) reserved += resourceAmount(resourceName, kubeReserved);
    const threshold = evictionByResource[resourceName];
    if (threshold !== undefined) {
      reserved += thresholdAmount(resourceName, threshold, resourceAmount(resourceName, quantity));
    }
    if (reserved !== 0) reservation[resourceName] = reserved;
  }
  return reservation;
}

/** Allocatable = capacity − reservation, clamped at zero, with huge page capacity taken out of memory. */
export function nodeAllocatable(capacity: ResourceList, reservation: Record<string, number>): ResourceList {
  const amounts: Record<string, number> = {};
  for (const [resourceName, quantity] of Object.entries(capacity)) {
    amounts[resourceName] = Math.max(0, resourceAmount(resourceName, quantity) - (reservation[resourceName] ?? 0));
  }
  for (const [resourceName, quantity] of Object.entries(capacity)) {
    if (!resourceName.startsWith('hugepages-') || amounts.memory === undefined) continue;
    amounts.memory = Math.max(0, amounts.memory - resourceAmount(resourceName, quantity));
  }
  const allocatable: ResourceList = {};
  for (const [resourceName, amount] of Object.entries(amounts)) {
    allocatable[resourceName] = formatResource(resourceName, amount);
  }
  return allocatable;
}

/** Capacity and allocatable together, as the node status carries them. */
export function nodeResources(
  machine: MachineInfo,
  options: Pick<KubeletOptions, 'maxPods' | 'podsPerCore' | 'systemReserved' | 'kubeReserved' | 'evictionHard'>,
): { capacity: ResourceList; allocatable: ResourceList } {
  const capacity = nodeCapacity(machine, options);
  return { capacity, allocatable: nodeAllocatable(capacity, nodeAllocatableReservation(capacity, options)) };
}
