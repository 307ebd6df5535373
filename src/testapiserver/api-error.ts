// Errors as the API server reports them: a meta/v1 Status object with upstream's
// reasons and codes (as apimachinery's pkg/api/errors builds them).

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: Array<{ reason?: string; message?: string; field?: string }>;
  retryAfterSeconds?: number;
}

export interface StatusObject {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Success' | 'Failure';
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code: number;
}

/** A failed request; `toStatus()` is what goes on the wire. */
export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly details?: StatusDetails,
  ) {
    super(message);
  }

  toStatus(): StatusObject {
    const status: StatusObject = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: this.message,
      reason: this.reason,
      code: this.code,
    };
    if (this.details) status.details = this.details;
    return status;
  }
}

/** Names a resource the way upstream messages do: `pods "web"`, `leases.coordination.k8s.io "n1"`. */
function qualified(group: string, plural: string): string {
  return group ? `${plural}.${group}` : plural;
}

export function notFound(group: string, plural: string, name: string): ApiError {
  return new ApiError(404, 'NotFound', `${qualified(group, plural)} "${name}" not found`, {
    name,
    group: group || undefined,
    kind: plural,
  });
}

export function alreadyExists(group: string, plural: string, name: string): ApiError {
  return new ApiError(409, 'AlreadyExists', `${qualified(group, plural)} "${name}" already exists`, {
    name,
    group: group || undefined,
    kind: plural,
  });
}

export function conflict(group: string, plural: string, name: string): ApiError {
  const message =
    `Operation cannot be fulfilled on ${qualified(group, plural)} "${name}": ` +
    'the object has been modified; please apply your changes to the latest version and try again';
  return new ApiError(409, 'Conflict', message, { name, group: group || undefined, kind: plural });
}

export function expired(requested: number, oldest: number): ApiError {
  return new ApiError(410, 'Expired', `too old resource version: ${requested} (${oldest})`);
}

export function badRequest(message: string): ApiError {
  return new ApiError(400, 'BadRequest', message);
}

export function invalid(kind: string, name: string, field: string, message: string): ApiError {
  return new ApiError(422, 'Invalid', `${kind} "${name}" is invalid: ${field}: ${message}`, {
    name,
    kind,
    causes: [{ reason: 'FieldValueInvalid', message, field }],
  });
}

export function unauthorized(): ApiError {
  return new ApiError(401, 'Unauthorized', 'Unauthorized');
}

export function methodNotAllowed(verb: string, resource: string): ApiError {
  return new ApiError(405, 'MethodNotAllowed', `the server does not allow this method on the requested resource (${verb} ${resource})`);
}

export function unsupportedMediaType(contentType: string): ApiError {
  return new ApiError(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json (got ${contentType})`);
}

export function successStatus(details?: StatusDetails): StatusObject {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details, code: 200 };
}
