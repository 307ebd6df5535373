// Every request this server refused with 403 Forbidden or 422 Invalid: who
// asked, for what, and why, kept in order and logged as it happens, so that a
// test can assert that a kubelet run was refused nothing it did not provoke.
import type { Logger } from 'pino';
import type { ApiError } from './api-error.js';
import type { AuthorizationAttributes } from './authz/attributes.js';

export const REFUSAL_CODES = new Set([403, 422]);

export interface Refusal {
  /** ISO time of the refusal. */
  at: string;
  user: string;
  groups: string[];
  verb: string;
  /** `pods`, `pods/status`, `leases` (the group is separate); '' for a non-resource path. */
  resource: string;
  group: string;
  namespace: string;
  name: string;
  /** The URL path, which is all a non-resource request has. */
  path: string;
  code: number;
  /** The Status reason: Forbidden or Invalid. */
  reason: string;
  message: string;
}

export class RefusalLog {
  private readonly refusals: Refusal[] = [];

  constructor(private readonly logger?: Logger) {}

  /** Keeps and logs the error if it is a 403 or a 422. */
  record(attributes: AuthorizationAttributes, err: ApiError): void {
    if (!REFUSAL_CODES.has(err.code)) return;
    const refusal: Refusal = {
      at: new Date().toISOString(),
      user: attributes.user.user,
      groups: attributes.user.groups,
      verb: attributes.verb,
      resource: attributes.subresource ? `${attributes.resource}/${attributes.subresource}` : attributes.resource,
      group: attributes.apiGroup,
      namespace: attributes.namespace,
      // A create names its object in the body; the Status names it.
      name: attributes.name || err.details?.name || '',
      path: attributes.path,
      code: err.code,
      reason: err.reason,
      message: err.message,
    };
    this.refusals.push(refusal);
    this.logger?.warn({ refusal }, 'test apiserver refused a request');
  }

  list(): Refusal[] {
    return this.refusals.map((r) => ({ ...r, groups: [...r.groups] }));
  }

  clear(): void {
    this.refusals.length = 0;
  }
}
