// Starts the simulated runtime on a fresh temp socket with a CriClient on it,
// plus builders for the sandbox and container configs the tests send.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CriClient } from '../../src/shared/cri/client.js';
import type * as cri from '../../src/shared/cri/types.js';
import type { LatencyOverrides } from '../../src/simruntime/latency-model.js';
import { startSimRuntime, type SimRuntime, type SimRuntimeOptions } from '../../src/simruntime/server.js';

export const TEST_IMAGE = 'busybox:1.36';

export interface SimHarness {
  sim: SimRuntime;
  client: CriClient;
  socketPath: string;
  close(): Promise<void>;
}

export function tempSocketPath(): { dir: string; socketPath: string } {
  const dir = mkdtempSync(join(tmpdir(), 'shardlet-cri-test-'));
  return { dir, socketPath: join(dir, 'cri.sock') };
}

/** An instant sim (latency scale 0) unless `latency` says otherwise. */
export async function startHarness(
  latency: LatencyOverrides = { scale: 0 },
  extra: Partial<SimRuntimeOptions> = {},
  clientTimeoutMs = 5_000,
): Promise<SimHarness> {
  const { dir, socketPath } = tempSocketPath();
  const sim = await startSimRuntime({ socketPath, latency, ...extra });
  const client = new CriClient(sim.endpoint, { timeoutMs: clientTimeoutMs });
  return {
    sim,
    client,
    socketPath,
    async close() {
      client.close();
      await sim.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function sandboxConfig(
  name: string,
  options: { uid?: string; attempt?: number; labels?: Record<string, string>; hostNetwork?: boolean; hostname?: string } = {},
): cri.PodSandboxConfig {
  return {
    metadata: { name, uid: options.uid ?? `uid-${name}`, namespace: 'default', attempt: options.attempt ?? 0 },
    // A host-network pod shares the node's UTS namespace: the kubelet sends no hostname.
    hostname: options.hostname ?? (options.hostNetwork ? '' : name),
    log_directory: `/var/log/pods/default_${name}_${options.uid ?? `uid-${name}`}`,
    labels: { 'io.kubernetes.pod.name': name, ...options.labels },
    annotations: { 'kubernetes.io/config.source': 'file', 'example.com/note': `pod ${name}` },
    linux: options.hostNetwork ? { security_context: { namespace_options: { network: 'NODE' } } } : {},
  };
}

export function containerConfig(
  name: string,
  command: string[],
  options: { attempt?: number; labels?: Record<string, string>; image?: string } = {},
): cri.ContainerConfig {
  return {
    metadata: { name, attempt: options.attempt ?? 0 },
    image: { image: options.image ?? TEST_IMAGE },
    command,
    labels: { 'io.kubernetes.container.name': name, ...options.labels },
    annotations: { 'io.kubernetes.container.hash': 'abc123', 'io.kubernetes.container.restartCount': String(options.attempt ?? 0) },
    log_path: `${name}/${options.attempt ?? 0}.log`,
  };
}

/** Polls `check` until it returns a value, or fails after `timeoutMs`. */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 10_000, periodMs = 20): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, periodMs));
  }
}

/** The rejection of `promise`, failing when it resolves. */
export async function rejectionOf(promise: Promise<unknown>): Promise<Error & { code?: unknown; details?: unknown }> {
  try {
    await promise;
  } catch (err) {
    return err as Error & { code?: unknown; details?: unknown };
  }
  throw new Error('expected the call to fail, it succeeded');
}

/** A GetContainerEvents subscriber: every event it receives, until stop(). */
export interface EventSubscription {
  events: cri.ContainerEventResponse__Output[];
  /** Resolves when the stream ended, with the error that ended it if any (undefined: OK). */
  ended: Promise<unknown>;
  stop(): void;
}

/** Opens one GetContainerEvents stream and keeps what it sends. */
export function subscribeToEvents(client: CriClient): EventSubscription {
  const abort = new AbortController();
  const events: cri.ContainerEventResponse__Output[] = [];
  const ended = (async () => {
    for await (const event of client.getContainerEvents({}, { signal: abort.signal })) events.push(event);
  })().then(
    () => undefined,
    (err: unknown) => err,
  );
  return { events, ended, stop: () => abort.abort() };
}
