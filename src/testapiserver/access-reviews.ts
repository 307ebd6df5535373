// TokenReview (authentication.k8s.io/v1) and SubjectAccessReview
// (authorization.k8s.io/v1), what a kubelet's webhook authenticator and
// authorizer send. Tokens are those the server's authenticator knows (static,
// bootstrap, service-account); decisions come from the rule table tests set
// (access-rules.ts).
import type { ResourceAttributes } from './access-rules.js';
import { badRequest } from './api-error.js';
import type { ServerContext } from './context.js';

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
