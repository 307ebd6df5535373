// Start-up gate: wait until the container runtime answers, speaks CRI v1 and says
// RuntimeReady, the checks upstream's kubelet makes in getRuntimeAndImageServices
// and the runtime-state check of its sync loop. Each failed attempt logs one
// coded line that names the endpoint and the reason, then retries with backoff;
// an operator starting shardlet before containerd should see what is missing,
// not a stack trace.
import { setTimeout as sleep } from 'node:timers/promises';
import { status as GrpcStatus } from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { Backoff, DEFAULT_MAX_BACKOFF_MS } from '../backoff.js';
import { ErrorCodes, ShardletError } from '../errors.js';
import type { CriClient } from './client.js';
import { grpcCodeOf, grpcStatusName } from './cri-error.js';
import type { RuntimeCondition__Output, VersionResponse__Output } from './types.js';

export const SUPPORTED_RUNTIME_API_VERSION = 'v1';
/** First retry delay; doubled (with jitter) up to the shared 30 s cap. */
export const INITIAL_BACKOFF_MS = 500;
/** Deadline of each probe call: a hung runtime must not hold start-up for the full request timeout. */
export const DEFAULT_PROBE_TIMEOUT_MS = 10_000;

/** Condition types every CRI runtime reports (see RuntimeCondition in the spec). */
export const RUNTIME_READY_CONDITION = 'RuntimeReady';
export const NETWORK_READY_CONDITION = 'NetworkReady';

export interface WaitForRuntimeOptions {
  logger: Pick<Logger, 'info' | 'warn'>;
  signal?: AbortSignal;
  /** Cap of the doubling retry delay. */
  maxBackoffMs?: number;
  /** First retry delay. */
  initialBackoffMs?: number;
  /** Source of the retry jitter (Math.random unless a test pins it). */
  random?: () => number;
  probeTimeoutMs?: number;
}

type ProbeResult =
  | { ready: true; version: VersionResponse__Output; networkNotReady?: ShardletError }
  | { ready: false; problem: ShardletError };

/**
 * Resolves with the runtime's Version reply once it is usable. NetworkReady=false
 * is reported but does not hold start-up: as upstream, host-network pods (the
 * static control-plane pods of a bootstrap node) must run before any CNI exists.
 * Rejects only when `signal` aborts.
 */
export async function waitForRuntime(client: CriClient, options: WaitForRuntimeOptions): Promise<VersionResponse__Output> {
  const backoff = new Backoff({
    initialMs: options.initialBackoffMs ?? INITIAL_BACKOFF_MS,
    maxMs: options.maxBackoffMs ?? DEFAULT_MAX_BACKOFF_MS,
    random: options.random,
  });
  for (let attempt = 1; ; attempt++) {
    options.signal?.throwIfAborted();
    const result = await probeRuntime(client, options.probeTimeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS);
    if (result.ready) {
      if (result.networkNotReady) logProblem(options.logger, result.networkNotReady, { attempt });
      return result.version;
    }
    const retryInMs = backoff.next();
    logProblem(options.logger, result.problem, { attempt, retryInMs });
    await sleep(retryInMs, undefined, { signal: options.signal });
  }
}

/** One Version + Status round; never throws. */
async function probeRuntime(client: CriClient, timeoutMs: number): Promise<ProbeResult> {
  const endpoint = client.endpoint;
  let version: VersionResponse__Output;
  try {
    version = await client.version({ version: SUPPORTED_RUNTIME_API_VERSION }, timeoutMs);
  } catch (err) {
    return { ready: false, problem: callProblem(endpoint, 'Version', err) };
  }
  if (version.runtime_api_version !== SUPPORTED_RUNTIME_API_VERSION) {
    const problem = new ShardletError(
      ErrorCodes.CRI_VERSION_UNSUPPORTED,
      `container runtime at ${endpoint} (${version.runtime_name} ${version.runtime_version}) speaks CRI API ` +
        `"${version.runtime_api_version}", shardlet needs "${SUPPORTED_RUNTIME_API_VERSION}"`,
      { endpoint, reason: `runtime_api_version ${version.runtime_api_version}` },
    );
    return { ready: false, problem };
  }
  let conditions: RuntimeCondition__Output[];
  try {
    conditions = (await client.status({ verbose: false }, timeoutMs)).status?.conditions ?? [];
  } catch (err) {
    return { ready: false, problem: callProblem(endpoint, 'Status', err) };
  }
  return readinessOf(endpoint, version, conditions);
}

function readinessOf(endpoint: string, version: VersionResponse__Output, conditions: RuntimeCondition__Output[]): ProbeResult {
  const runtimeReady = conditions.find((c) => c.type === RUNTIME_READY_CONDITION);
  const networkReady = conditions.find((c) => c.type === NETWORK_READY_CONDITION);
  const summary = `${describeCondition(RUNTIME_READY_CONDITION, runtimeReady)}, ${describeCondition(NETWORK_READY_CONDITION, networkReady)}`;
  const runtime = `${version.runtime_name} ${version.runtime_version}`;
  if (!runtimeReady?.status) {
    const problem = new ShardletError(
      ErrorCodes.CRI_NOT_READY,
      `container runtime at ${endpoint} (${runtime}) is not ready: ${summary}`,
      { endpoint, reason: summary },
    );
    return { ready: false, problem };
  }
  if (!networkReady?.status) {
    const networkNotReady = new ShardletError(
      ErrorCodes.CRI_NOT_READY,
      `container runtime at ${endpoint} (${runtime}) reports its network not ready: ${summary}; ` +
        'only host-network pods can start until it is',
      { endpoint, reason: summary },
    );
    return { ready: true, version, networkNotReady };
  }
  return { ready: true, version };
}

function describeCondition(type: string, condition: RuntimeCondition__Output | undefined): string {
  if (!condition) return `${type} missing`;
  const why = [condition.reason, condition.message].filter(Boolean).join(': ');
  return `${type}=${condition.status}${why ? ` (${why})` : ''}`;
}

/** Turns a failed probe call into the coded problem an operator can act on. */
function callProblem(endpoint: string, call: string, err: unknown): ShardletError {
  const code = grpcCodeOf(err);
  const details = String((err as { details?: unknown }).details ?? (err as Error).message ?? err);
  if (code === GrpcStatus.UNIMPLEMENTED) {
    return new ShardletError(
      ErrorCodes.CRI_VERSION_UNSUPPORTED,
      `container runtime at ${endpoint} does not serve runtime.v1 (${call}: UNIMPLEMENTED: ${details}); ` +
        'is its CRI plugin enabled and at CRI v1?',
      { endpoint, reason: `UNIMPLEMENTED: ${details}` },
    );
  }
  const reason = code === GrpcStatus.UNAVAILABLE ? socketReason(details) : `${call}: ${grpcStatusName(code ?? GrpcStatus.UNKNOWN)}: ${details}`;
  return new ShardletError(ErrorCodes.CRI_UNAVAILABLE, `container runtime at ${endpoint} is unavailable: ${reason}`, {
    endpoint,
    reason,
  });
}

/** grpc-js folds the socket error into its details; name the common ones plainly. */
function socketReason(details: string): string {
  if (details.includes('ENOENT')) return 'the socket does not exist (is the runtime running?)';
  if (details.includes('ECONNREFUSED')) return 'nothing is listening on the socket (is the runtime running?)';
  if (details.includes('EACCES') || details.includes('EPERM')) return 'permission denied on the socket (run as root?)';
  return details;
}

function logProblem(logger: WaitForRuntimeOptions['logger'], problem: ShardletError, extra: Record<string, unknown>): void {
  const retry = typeof extra.retryInMs === 'number' ? `; retrying in ${extra.retryInMs} ms` : '';
  logger.warn({ code: problem.code, ...problem.details, ...extra }, `${problem.code}: ${problem.message}${retry}`);
}
