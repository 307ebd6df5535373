// Builders for admission tests: pods and a node, as plain API-shaped objects.
import type { NodeInfoForAdmission } from '../../../src/shared/admission/admit-pod.js';
import type { Container, Pod, PodSpec } from '../../../src/shared/types.js';

let nextUid = 0;

export function container(name: string, requests: Record<string, string> = {}, extra: Partial<Container> = {}): Container {
  return { name, image: 'busybox', resources: { requests }, ...extra };
}

export function pod(spec: Partial<PodSpec> = {}, meta: Pod['metadata'] = {}): Pod {
  nextUid += 1;
  return {
    metadata: { name: `p${nextUid}`, namespace: 'default', uid: `uid-${nextUid}`, ...meta },
    spec: { containers: [container('app')], ...spec },
  };
}

/** A pod requesting the given cpu / memory in one container. */
export function podRequesting(requests: Record<string, string>): Pod {
  return pod({ containers: [container('app', requests)] });
}

export function node(overrides: Partial<NodeInfoForAdmission> = {}): NodeInfoForAdmission {
  return {
    name: 'node-a',
    labels: { 'kubernetes.io/hostname': 'node-a', 'kubernetes.io/os': 'linux', zone: 'z1', cores: '8' },
    taints: [],
    allocatable: { cpuMillis: 4000, memoryBytes: 8 * 1024 ** 3, pods: 110, ephemeralStorageBytes: 10 * 1024 ** 3 },
    ...overrides,
  };
}

export const STATIC_ANNOTATIONS = { 'kubernetes.io/config.source': 'file' };
export const API_ANNOTATIONS = { 'kubernetes.io/config.source': 'api' };
