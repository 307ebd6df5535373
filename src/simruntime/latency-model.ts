// How long each simulated CRI call takes. The defaults are what a bare gRPC
// client measured against containerd 1.6 + runc + the bridge CNI on the target
// machines (see DESIGN.md); image pulls cost a fixed resolve time plus the image's
// bytes over a registry link shared by concurrent pulls, each pull no faster than
// its own download-and-unpack rate. Every delay is a timer, so concurrent calls
// overlap as they do on a real runtime; the one bound is an optional number of
// runtime operation slots, because a real runtime does its heavy work (namespaces,
// CNI, runc) on a finite number of cores.
import { readFileSync } from 'node:fs';
import type { CriMethod } from '../shared/cri/call-counts.js';
import { RegistryLink } from './registry-link.js';

/** Names of the CRI methods the sim serves, as in the proto (the one list, shared with shardlet's call counters). */
export type RpcName = CriMethod;

/**
 * The calls that fork runc, run CNI plugins or set up mounts: they take a runtime
 * operation slot. The others are lookups in containerd's metadata.
 */
export const RUNTIME_OPERATION_RPCS: ReadonlySet<RpcName> = new Set<RpcName>([
  'RunPodSandbox',
  'StopPodSandbox',
  'RemovePodSandbox',
  'CreateContainer',
  'StartContainer',
  'StopContainer',
  'RemoveContainer',
]);

/** Measured on containerd 1.6 where noted; the rest are small bookkeeping calls. */
export const DEFAULT_CALL_LATENCY_MS: Readonly<Record<RpcName, number>> = {
  Version: 1,
  Status: 1,
  UpdateRuntimeConfig: 1,
  ReopenContainerLog: 2,
  RunPodSandbox: 90, // measured: netns + CNI bridge ADD + pause task
  StopPodSandbox: 90, // measured: CNI DEL + pause task kill
  RemovePodSandbox: 10,
  PodSandboxStatus: 1,
  ListPodSandbox: 1,
  CreateContainer: 8, // measured: snapshot + OCI spec
  StartContainer: 55, // measured: runc create + start
  StopContainer: 10,
  RemoveContainer: 5,
  ListContainers: 1,
  ContainerStatus: 1,
  UpdateContainerResources: 2,
  ExecSync: 20,
  GetContainerEvents: 0,
  ListImages: 1,
  ImageStatus: 1,
  PullImage: 30, // manifest resolution before any layer moves
  RemoveImage: 5,
  ImageFsInfo: 1,
  // Stats come from the runtime's cgroup reads; list calls add their per-item cost.
  ContainerStats: 1,
  ListContainerStats: 1,
  PodSandboxStats: 1,
  ListPodSandboxStats: 1,
};

export const DEFAULT_IMAGE_SIZE_BYTES = 50_000_000;
export const DEFAULT_REGISTRY_BANDWIDTH_BYTES_PER_SECOND = 100_000_000;
/** ±20 % uniform jitter on every call. */
export const DEFAULT_JITTER_FRACTION = 0.2;
/** Extra cost of a list call per item returned (the runtime builds every entry). */
export const DEFAULT_LIST_ITEM_LATENCY_MS = 0.005;

export interface LatencyOptions {
  /** Multiplies every delay, transfers included; 0 makes the sim instant (fast tests). */
  scale: number;
  /** Each delay is drawn uniformly from d × (1 ± jitter). */
  jitter: number;
  /** Per-call base latency, milliseconds. */
  callLatencyMs: Record<RpcName, number>;
  listItemLatencyMs: number;
  /** Shared by all pulls in flight; 0 means unlimited. */
  registryBandwidthBytesPerSecond: number;
  /** The most one pull moves per second (its own download and unpack); 0 means only the link limits it. */
  pullBytesPerSecond: number;
  /** Runtime operations (RUNTIME_OPERATION_RPCS) in progress at once, the rest wait in FIFO order; 0 means no limit. */
  runtimeOperationSlots: number;
  defaultImageSizeBytes: number;
  /** Sizes by image name as written or canonical (docker.io/library/busybox:latest). */
  imageSizesBytes: Record<string, number>;
}

/** What a JSON file or the caller may override. */
export type LatencyOverrides = Partial<Omit<LatencyOptions, 'callLatencyMs'>> & {
  callLatencyMs?: Partial<Record<RpcName, number>>;
};

export function defaultLatencyOptions(): LatencyOptions {
  return {
    scale: 1,
    jitter: DEFAULT_JITTER_FRACTION,
    callLatencyMs: { ...DEFAULT_CALL_LATENCY_MS },
    listItemLatencyMs: DEFAULT_LIST_ITEM_LATENCY_MS,
    registryBandwidthBytesPerSecond: DEFAULT_REGISTRY_BANDWIDTH_BYTES_PER_SECOND,
    pullBytesPerSecond: 0,
    runtimeOperationSlots: 0,
    defaultImageSizeBytes: DEFAULT_IMAGE_SIZE_BYTES,
    imageSizesBytes: {},
  };
}

/** Defaults, then each layer of overrides in order (profile first, then file, flags last). */
export function resolveLatencyOptions(...layers: Array<LatencyOverrides | undefined>): LatencyOptions {
  const defaults = defaultLatencyOptions();
  const merged = mergeLatencyOverrides(...layers);
  const options: LatencyOptions = {
    ...defaults,
    ...merged,
    callLatencyMs: { ...defaults.callLatencyMs, ...merged.callLatencyMs },
    imageSizesBytes: { ...merged.imageSizesBytes },
  };
  validate(options);
  return options;
}

/** One set of overrides from several, later layers winning; undefined values leave a field alone. */
export function mergeLatencyOverrides(...layers: Array<LatencyOverrides | undefined>): LatencyOverrides {
  const merged: LatencyOverrides = {};
  for (const layer of layers) {
    if (!layer) continue;
    const { callLatencyMs, imageSizesBytes, ...scalars } = layer;
    for (const [key, value] of Object.entries(scalars)) {
      if (value !== undefined) (merged as unknown as Record<string, unknown>)[key] = value;
    }
    if (callLatencyMs) merged.callLatencyMs = { ...merged.callLatencyMs, ...callLatencyMs };
    if (imageSizesBytes) merged.imageSizesBytes = { ...merged.imageSizesBytes, ...imageSizesBytes };
  }
  return merged;
}

/** Reads a latency JSON file: any subset of LatencyOptions. */
export function loadLatencyFile(path: string): LatencyOverrides {
  const parsed: unknown = JSON.parse(readFileSync(path, 'utf8'));
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new Error(`latency file ${path}: expected a JSON object`);
  }
  const unknownRpc = Object.keys((parsed as LatencyOverrides).callLatencyMs ?? {}).filter(
    (name) => !(name in DEFAULT_CALL_LATENCY_MS),
  );
  if (unknownRpc.length > 0) throw new Error(`latency file ${path}: unknown RPC name(s) in callLatencyMs: ${unknownRpc.join(', ')}`);
  return parsed as LatencyOverrides;
}

function validate(options: LatencyOptions): void {
  const nonNegative: Array<[string, number]> = [
    ['scale', options.scale],
    ['jitter', options.jitter],
    ['listItemLatencyMs', options.listItemLatencyMs],
    ['registryBandwidthBytesPerSecond', options.registryBandwidthBytesPerSecond],
    ['pullBytesPerSecond', options.pullBytesPerSecond],
    ['defaultImageSizeBytes', options.defaultImageSizeBytes],
    ...Object.entries(options.callLatencyMs),
  ];
  for (const [name, value] of nonNegative) {
    if (typeof value !== 'number' || !(value >= 0)) throw new Error(`latency option ${name} must be a number ≥ 0, got ${value}`);
  }
  if (options.jitter >= 1) throw new Error(`latency option jitter must be below 1, got ${options.jitter}`);
  if (!Number.isInteger(options.runtimeOperationSlots) || options.runtimeOperationSlots < 0) {
    throw new Error(`latency option runtimeOperationSlots must be an integer ≥ 0, got ${options.runtimeOperationSlots}`);
  }
}

/** A fixed number of slots handed out in arrival order. */
class FifoSlots {
  private inUse = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly limit: number) {}

  /** Resolves once the caller holds a slot; call release() when done. */
  acquire(): Promise<void> {
    if (this.inUse < this.limit) {
      this.inUse++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** Hands the slot to the longest waiter, or frees it. */
  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.inUse--;
  }

  get held(): number {
    return this.inUse;
  }

  get queued(): number {
    return this.waiting.length;
  }
}

export class LatencyModel {
  private readonly link: RegistryLink;
  private readonly slots?: FifoSlots;

  constructor(readonly options: LatencyOptions = defaultLatencyOptions()) {
    // A slower sim (scale > 1) moves bytes proportionally slower; 0 stays "no limit".
    const scaled = (bytesPerSecond: number) => (options.scale === 0 ? Infinity : bytesPerSecond / options.scale);
    this.link = new RegistryLink(scaled(options.registryBandwidthBytesPerSecond), scaled(options.pullBytesPerSecond));
    if (options.runtimeOperationSlots > 0) this.slots = new FifoSlots(options.runtimeOperationSlots);
  }

  /** One draw of the delay of `rpc`, in ms; list calls pay per item returned. */
  delayMs(rpc: RpcName, items = 0): number {
    const baseMs = this.options.callLatencyMs[rpc] + items * this.options.listItemLatencyMs;
    const jitterFactor = 1 + (Math.random() * 2 - 1) * this.options.jitter;
    return baseMs * jitterFactor * this.options.scale;
  }

  /** Waits out the delay of one call; a runtime operation first waits for a free slot. */
  async wait(rpc: RpcName, items = 0): Promise<void> {
    const ms = this.delayMs(rpc, items);
    if (ms <= 0) return;
    if (!this.slots || !RUNTIME_OPERATION_RPCS.has(rpc)) {
      await sleep(ms);
      return;
    }
    await this.slots.acquire();
    try {
      await sleep(ms);
    } finally {
      this.slots.release();
    }
  }

  /** Runtime operations holding a slot, and those waiting for one. */
  get runtimeOperations(): { inProgress: number; waiting: number } {
    return { inProgress: this.slots?.held ?? 0, waiting: this.slots?.queued ?? 0 };
  }

  /** Moves an image's bytes over the shared registry link, at most at the per-pull rate. */
  download(bytes: number): Promise<void> {
    return this.link.transfer(bytes);
  }

  close(): void {
    this.link.close();
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
