// How many CRI calls shardlet made, per method, over all its threads (upstream's
// kubelet_runtime_operations_total). The counters live in one SharedArrayBuffer
// that the main thread hands to every shard and PLEG thread, so counting is one
// atomic add and reading the node-wide total needs no messages.

/** Every unary method of runtime.v1 the client can call, in a fixed order (the counter index). */
export const CRI_METHODS = [
  'Version',
  'Status',
  'UpdateRuntimeConfig',
  'RunPodSandbox',
  'StopPodSandbox',
  'RemovePodSandbox',
  'PodSandboxStatus',
  'ListPodSandbox',
  'CreateContainer',
  'StartContainer',
  'StopContainer',
  'RemoveContainer',
  'ListContainers',
  'ContainerStatus',
  'UpdateContainerResources',
  'ExecSync',
  'Exec',
  'Attach',
  'PortForward',
  'GetContainerEvents',
  'ListImages',
  'ImageStatus',
  'PullImage',
  'RemoveImage',
  'ImageFsInfo',
] as const;

export type CriMethod = (typeof CRI_METHODS)[number];

const INDEX_OF = new Map<CriMethod, number>(CRI_METHODS.map((name, index) => [name, index]));

export class CriCallCounts {
  private readonly counters: Int32Array;

  /** A fresh set of counters, or a view of counters another thread made (pass its `buffer`). */
  constructor(readonly buffer: SharedArrayBuffer = new SharedArrayBuffer(CRI_METHODS.length * Int32Array.BYTES_PER_ELEMENT)) {
    this.counters = new Int32Array(buffer);
  }

  /** Counts one call; the type makes a method missing from CRI_METHODS a compile error, not a lost count. */
  record(method: CriMethod): void {
    Atomics.add(this.counters, INDEX_OF.get(method)!, 1);
  }

  /** Calls so far per method; methods never called are left out. */
  snapshot(): Partial<Record<CriMethod, number>> {
    const calls: Partial<Record<CriMethod, number>> = {};
    CRI_METHODS.forEach((name, index) => {
      const count = Atomics.load(this.counters, index);
      if (count > 0) calls[name] = count;
    });
    return calls;
  }
}
