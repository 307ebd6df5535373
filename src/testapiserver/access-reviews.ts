// TokenReview (authentication.k8s.io/v1) and SubjectAccessReview
// (authorization.k8s.io/v1), what a kubelet's webhook authenticator and
// authorizer send. Tokens are those the server's authenticator knows (static,
// bootstrap, service-account); decisions come from a small RBAC-like rule table
// tests set: who (user or group) may do which verbs on which resource and
// subresource. system:masters may do everything, as with RBAC's superuser group.
import { badRequest } from './api-error.js';
import type { ServerContext } from './context.js';

export const SUPERUSER_GROUP = 'system:masters';

/** One grant. Omitted or '*' fields match anything. */
export interface AccessRule {
  users?: string[];
  groups?: string[];
  verbs?: string[];
  /** e.g. 'nodes'. */
  resources?: string[];
  /** e.g. ['proxy', 'stats'], '' for the resource itself. */
  subresources?: string[];
}

interface ResourceAttributes {
  verb?: string;
  resource?: string;
  subresource?: string;
  name?: string;
  namespace?: string;
  group?: string;
}

const matches = (allowed: string[] | undefined, value: string) => allowed === undefined || allowed.includes('*') || allowed.includes(value);

export class AccessRules {
  private rules: AccessRule[] = [];

  /** Adds a grant; returns a function that takes it back. */
  allow(rule: AccessRule): () => void {
    this.rules.push(rule);
    return () => {
      this.rules = this.rules.filter((r) => r !== rule);
    };
  }

  reset(): void {
    this.rules = [];
  }

  allows(user: string, groups: string[], attributes: ResourceAttributes): { allowed: boolean; reason: string } {
    if (groups.includes(SUPERUSER_GROUP)) return { allowed: true, reason: `group ${SUPERUSER_GROUP}` };
    const rule = this.rules.find(
      (r) =>
        (r.users === undefined && r.groups === undefined ? true : (r.users ?? []).includes(user) || (r.groups ?? []).some((g) => groups.includes(g))) &&
        matches(r.verbs, attributes.verb ?? '') &&
        matches(r.resources, attributes.resource ?? '') &&
        matches(r.subresources, attributes.subresource ?? ''),
    );
    return rule ? { allowed: true, reason: 'allowed by a test rule' } : { allowed: false, reason: '' };
  }
}

/** POST tokenreviews: whether the token is one this server issued or knows, and whose. */
export function tokenReview(ctx: ServerContext, body: unknown): object {
  const token = (body as { spec?: { token?: string } } | undefined)?.spec?.token;
  if (!token) throw badRequest('a TokenReview needs spec.token');
  const identity = ctx.authenticator.identityOfToken(token);
  const status = identity
    ? { authenticated: true, user: { username: identity.user, groups: identity.groups } }
    : { authenticated: false, error: 'invalid bearer token' };
  return { kind: 'TokenReview', apiVersion: 'authentication.k8s.io/v1', metadata: { creationTimestamp: null }, spec: { token }, status };
}

/** POST subjectaccessreviews: the rule table's decision for the user and the resource attributes. */
export function subjectAccessReview(ctx: ServerContext, body: unknown): object {
  const spec = (body as { spec?: { user?: string; groups?: string[]; resourceAttributes?: ResourceAttributes } } | undefined)?.spec;
  if (!spec?.user && !spec?.groups?.length) throw badRequest('a SubjectAccessReview needs spec.user or spec.groups');
  const decision = ctx.accessRules.allows(spec.user ?? '', spec.groups ?? [], spec.resourceAttributes ?? {});
  return {
    kind: 'SubjectAccessReview',
    apiVersion: 'authorization.k8s.io/v1',
    metadata: { creationTimestamp: null },
    spec,
    status: { allowed: decision.allowed, ...(decision.reason ? { reason: decision.reason } : {}) },
  };
}
