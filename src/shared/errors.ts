// Every error shardlet raises on purpose, with a stable code an operator can grep
// for (undici's habit). An Error does not survive a MessagePort whole, so errors
// cross thread boundaries as a plain WireError { code, message, details } made by
// toWire(); the main thread reads the sync and pull results' WireErrors as they are.

export const ErrorCodes = {
  CONFIG_INVALID: 'SHARDLET_CONFIG_INVALID',
  FLAG_INVALID: 'SHARDLET_FLAG_INVALID',
  LISTEN_FAILED: 'SHARDLET_LISTEN_FAILED',
  MANIFEST_INVALID: 'SHARDLET_MANIFEST_INVALID',
  MANIFEST_DUPLICATE: 'SHARDLET_MANIFEST_DUPLICATE',
  MANIFEST_URL_FAILED: 'SHARDLET_MANIFEST_URL_FAILED',
  PATH_UNSAFE: 'SHARDLET_PATH_UNSAFE',
  CRI_UNAVAILABLE: 'SHARDLET_CRI_UNAVAILABLE',
  CRI_VERSION_UNSUPPORTED: 'SHARDLET_CRI_VERSION_UNSUPPORTED',
  CRI_NOT_READY: 'SHARDLET_CRI_NOT_READY',
  CRI_CALL_FAILED: 'SHARDLET_CRI_CALL_FAILED',
  IMAGE_PULL_FAILED: 'SHARDLET_IMAGE_PULL_FAILED',
  IMAGE_PULL_BACKOFF: 'SHARDLET_IMAGE_PULL_BACKOFF',
  IMAGE_NEVER_PULL: 'SHARDLET_IMAGE_NEVER_PULL',
  CRASH_LOOP_BACKOFF: 'SHARDLET_CRASH_LOOP_BACKOFF',
  CREATE_CONTAINER_CONFIG: 'SHARDLET_CREATE_CONTAINER_CONFIG',
  CREATE_CONTAINER: 'SHARDLET_CREATE_CONTAINER',
  RUN_SANDBOX: 'SHARDLET_RUN_SANDBOX',
  VOLUME_SETUP: 'SHARDLET_VOLUME_SETUP',
  SUBPATH_FAILED: 'SHARDLET_SUBPATH_FAILED',
  VOLUME_STATS_FAILED: 'SHARDLET_VOLUME_STATS_FAILED',
  SHARD_LOST: 'SHARDLET_SHARD_LOST',
  API_UNAVAILABLE: 'SHARDLET_API_UNAVAILABLE',
  POD_STATUS_RECORD: 'SHARDLET_POD_STATUS_RECORD',
  TLS_BOOTSTRAP_FAILED: 'SHARDLET_TLS_BOOTSTRAP_FAILED',
  CSR_DENIED: 'SHARDLET_CSR_DENIED',
  CERTIFICATE_KEY_MISMATCH: 'SHARDLET_CERTIFICATE_KEY_MISMATCH',
  LOG_ROTATION_FAILED: 'SHARDLET_LOG_ROTATION_FAILED',
  CONTAINER_GC_FAILED: 'SHARDLET_CONTAINER_GC_FAILED',
  RUNTIME_TASK_LEAKED: 'SHARDLET_RUNTIME_TASK_LEAKED',
  CONTAINER_LOG_READ_FAILED: 'SHARDLET_CONTAINER_LOG_READ_FAILED',
  PROBE_INVALID: 'SHARDLET_PROBE_INVALID',
  NODE_SHUTDOWN_UNAVAILABLE: 'SHARDLET_NODE_SHUTDOWN_UNAVAILABLE',
  NODE_SHUTDOWN_FAILED: 'SHARDLET_NODE_SHUTDOWN_FAILED',
  INTERNAL: 'SHARDLET_INTERNAL',
} as const;

export type ErrorCode = (typeof ErrorCodes)[keyof typeof ErrorCodes];

/** The serialisable form of a ShardletError. */
export interface WireError {
  code: string;
  message: string;
  details?: Record<string, unknown>;
}

export class ShardletError extends Error {
  override name = 'ShardletError';
  readonly code: string;
  readonly details: Record<string, unknown>;

  constructor(code: string, message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.code = code;
    this.details = details;
  }

  toWire(): WireError {
    return { code: this.code, message: this.message, details: this.details };
  }
}

/** Serialise any thrown value for postMessage. */
export function toWire(err: unknown): WireError {
  if (err instanceof ShardletError) return err.toWire();
  if (err instanceof Error) {
    const grpcCode = (err as { code?: unknown }).code;
    return {
      code: ErrorCodes.INTERNAL,
      message: err.message,
      details: typeof grpcCode === 'number' ? { grpcCode } : {},
    };
  }
  return { code: ErrorCodes.INTERNAL, message: String(err) };
}

/** Upstream's waiting reasons for a container whose start failed at one step. */
export const CONTAINER_WAITING_REASONS = [
  'ErrImagePull',
  'ImagePullBackOff',
  'ErrImageNeverPull',
  'CreateContainerConfigError',
  'CreateContainerError',
  'RunContainerError',
] as const;
export type ContainerWaitingReason = (typeof CONTAINER_WAITING_REASONS)[number];

/**
 * A container's start failed at one step (its image, its config): the waiting
 * reason upstream shows for it, and, when a backoff decides the next try, how long
 * until then. The fields also travel in `details`, so the wire form says the same.
 */
export class ContainerStartError extends ShardletError {
  override name = 'ContainerStartError';

  constructor(
    code: ErrorCode,
    message: string,
    readonly reason: ContainerWaitingReason,
    readonly container: string,
    readonly retryAfterMs?: number,
    details: Record<string, unknown> = {},
  ) {
    super(code, message, { ...details, reason, container, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) });
  }
}

/** Rebuilds the coded error another thread sent, as the class it was thrown as. */
export function fromWire(wire: WireError): ShardletError {
  const details = wire.details ?? {};
  const { reason, container, retryAfterMs } = details;
  if (isWaitingReason(reason) && typeof container === 'string') {
    return new ContainerStartError(
      wire.code as ErrorCode,
      wire.message,
      reason,
      container,
      typeof retryAfterMs === 'number' ? retryAfterMs : undefined,
      details,
    );
  }
  return new ShardletError(wire.code, wire.message, details);
}

function isWaitingReason(value: unknown): value is ContainerWaitingReason {
  return (CONTAINER_WAITING_REASONS as readonly unknown[]).includes(value);
}
