// Failures the simulated runtime answers with. Codes and wording follow what
// containerd's CRI plugin sends back, so callers are tested against the same
// codes they will meet on a node: NotFound for unknown IDs, and Unknown for the
// state errors containerd wraps without a code.
import { status as GrpcStatus, type ServiceError, Metadata } from '@grpc/grpc-js';

export class SimError extends Error {
  override name = 'SimError';
  constructor(
    readonly code: GrpcStatus,
    message: string,
  ) {
    super(message);
  }

  /** The shape grpc-js sends to the client as the call's status. */
  toServiceError(): Partial<ServiceError> {
    return { code: this.code, details: this.message, metadata: new Metadata() };
  }
}

export function notFound(message: string): SimError {
  return new SimError(GrpcStatus.NOT_FOUND, message);
}

export function unknown(message: string): SimError {
  return new SimError(GrpcStatus.UNKNOWN, message);
}

export function invalidArgument(message: string): SimError {
  return new SimError(GrpcStatus.INVALID_ARGUMENT, message);
}

export function unimplemented(message: string): SimError {
  return new SimError(GrpcStatus.UNIMPLEMENTED, message);
}

export function sandboxNotFound(id: string): SimError {
  return notFound(`an error occurred when try to find sandbox "${id}": not found`);
}

export function containerNotFound(id: string): SimError {
  return notFound(`an error occurred when try to find container "${id}": not found`);
}
