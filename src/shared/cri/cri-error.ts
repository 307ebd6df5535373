// The error a CRI call rejects with. It keeps the runtime's gRPC status code and
// details untouched, because callers branch on them: NotFound on a stop or a
// status call means "already gone", not failure (as upstream's
// kuberuntime treats codes.NotFound from the remote runtime).
import { status as GrpcStatus, type ServiceError } from '@grpc/grpc-js';

export class CriError extends Error {
  override name = 'CriError';
  /** gRPC status code, a number (5 is NOT_FOUND). */
  readonly code: number;
  /** The runtime's own message, without our prefix. */
  readonly details: string;
  /** Service and method, e.g. "RuntimeService/StartContainer". */
  readonly method: string;

  constructor(method: string, code: number, details: string) {
    super(`CRI ${method} failed: ${grpcStatusName(code)}: ${details}`);
    this.method = method;
    this.code = code;
    this.details = details;
  }
}

/** Wraps whatever grpc-js rejected with; the stack of a remote failure is noise. */
export function toCriError(method: string, err: unknown): CriError {
  const serviceError = err as Partial<ServiceError> | null;
  const code = typeof serviceError?.code === 'number' ? serviceError.code : GrpcStatus.UNKNOWN;
  const details = typeof serviceError?.details === 'string' ? serviceError.details : String((err as Error)?.message ?? err);
  return new CriError(method, code, details);
}

/** "NOT_FOUND" for 5, and so on. */
export function grpcStatusName(code: number): string {
  return (GrpcStatus as unknown as Record<number, string>)[code] ?? `CODE_${code}`;
}

/** The gRPC code of a CRI failure, also after it crossed a thread as a WireError (details.grpcCode). */
export function grpcCodeOf(err: unknown): number | undefined {
  const value = err as { code?: unknown; details?: unknown } | null;
  if (typeof value?.code === 'number') return value.code;
  const grpcCode = (value?.details as { grpcCode?: unknown } | undefined)?.grpcCode;
  return typeof grpcCode === 'number' ? grpcCode : undefined;
}

/** True when the runtime answered NOT_FOUND: the sandbox, container or image is not there. */
export function isNotFound(err: unknown): boolean {
  return grpcCodeOf(err) === GrpcStatus.NOT_FOUND;
}

/** True when the runtime could not be reached at all. */
export function isUnavailable(err: unknown): boolean {
  return grpcCodeOf(err) === GrpcStatus.UNAVAILABLE;
}

/** True when the runtime does not implement the call (containerd 1.6 and GetContainerEvents). */
export function isUnimplemented(err: unknown): boolean {
  return grpcCodeOf(err) === GrpcStatus.UNIMPLEMENTED;
}

/**
 * containerd 1.6 refusing RemoveContainer for a container whose task outlived a
 * StartContainer that was cancelled (its client died or its deadline passed): the CRI
 * shows the container EXITED, but its task stays CREATED and nothing over the CRI can
 * end it. Only a restart of containerd, or `ctr -n k8s.io tasks delete --force`, does.
 */
export function isLeakedTaskRefusal(err: unknown): boolean {
  return grpcCodeOf(err) === GrpcStatus.FAILED_PRECONDITION && /cannot delete running task/.test((err as Error)?.message ?? '');
}
