// Builders for pods and runtime views shared by the computePodActions and pod status
// tests: a runtime container gets the spec hash of its pod's container by default,
// so a test only spells out what differs.
import { hashContainer } from '../../src/shared/kuberuntime/container-hash.js';
import type { RuntimeContainer, RuntimePodStatus, RuntimeSandbox } from '../../src/shared/runtime-pod.js';
import type { Container, Pod, PodSpec } from '../../src/shared/types.js';

export const UID = 'uid-1';
/** A fixed "now": 2024-05-01T12:00:00Z. */
export const NOW_MS = Date.UTC(2024, 4, 1, 12, 0, 0);
export const SECOND_MS = 1000;

export function spec(name: string, extra: Partial<Container> = {}): Container {
  return { name, image: `registry.local/${name}:1`, command: ['/bin/run', name], ...extra };
}

export function makePod(specExtra: Partial<PodSpec> = {}, containers = [spec('a')]): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web', namespace: 'default', uid: UID },
    spec: { containers, ...specExtra },
  };
}

export function sandbox(extra: Partial<RuntimeSandbox> = {}): RuntimeSandbox {
  return {
    id: 'sb-1',
    state: 'ready',
    attempt: 0,
    createdAtMs: NOW_MS - 600 * SECOND_MS,
    ips: ['10.88.0.7'],
    hostNetwork: false,
    ...extra,
  };
}

/** A runtime instance of the pod's container `name` (its hash taken from the pod's spec). */
export function instance(pod: Pod, name: string, extra: Partial<RuntimeContainer> = {}): RuntimeContainer {
  const all = [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])];
  const specContainer = all.find((c) => c.name === name);
  const isInit = (pod.spec?.initContainers ?? []).some((c) => c.name === name);
  return {
    id: `${name}-${extra.restartCount ?? 0}`,
    name,
    hash: specContainer ? hashContainer(specContainer) : 'deadbeef',
    restartCount: 0,
    type: isInit ? 'INIT' : 'REGULAR',
    sandboxId: 'sb-1',
    state: 'running',
    createdAtMs: NOW_MS - 300 * SECOND_MS + (extra.restartCount ?? 0) * SECOND_MS,
    startedAtMs: NOW_MS - 299 * SECOND_MS,
    finishedAtMs: 0,
    exitCode: 0,
    reason: '',
    message: '',
    image: specContainer?.image ?? 'registry.local/other:1',
    imageRef: `sha256:${name}`,
    ...extra,
  };
}

/** An exited instance that finished `agoSeconds` before NOW_MS. */
export function exited(pod: Pod, name: string, exitCode: number, extra: Partial<RuntimeContainer> = {}): RuntimeContainer {
  return instance(pod, name, {
    state: 'exited',
    exitCode,
    startedAtMs: NOW_MS - 120 * SECOND_MS,
    finishedAtMs: NOW_MS - 60 * SECOND_MS,
    ...extra,
  });
}

export function runtimeOf(sandboxes: RuntimeSandbox[], containers: RuntimeContainer[]): RuntimePodStatus {
  const newestFirst = [...containers].sort((x, y) => y.createdAtMs - x.createdAtMs);
  return { uid: UID, name: 'web', namespace: 'default', sandboxes, containers: newestFirst };
}
