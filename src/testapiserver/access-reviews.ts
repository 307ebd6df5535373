// The review APIs, created and answered, never stored: TokenReview
// (authentication.k8s.io/v1: the tokens this server's authenticator knows), and
// SubjectAccessReview, SelfSubjectAccessReview and SelfSubjectRulesReview
// (authorization.k8s.io/v1), answered by the same authorizer chain that
// authorizes requests: what a kubelet's webhook authorizer, `kubectl auth can-i`
// and `kubectl auth can-i --list` ask.
import { badRequest } from './api-error.js';
import { nonResourceAttributes, type AuthorizationAttributes } from './authz/attributes.js';
import type { PolicyRule } from './authz/policy-rule.js';
import type { ResourceRequest, ServerContext } from './context.js';
import { invalidValue, throwIfInvalid, type FieldError } from './field-errors.js';
import { parseFieldSelector, type Requirement } from './selectors.js';
import type { ClientIdentity } from './tls.js';

const AUTHORIZATION_GROUP = 'authorization.k8s.io';
const AUTHORIZATION_API_VERSION = `${AUTHORIZATION_GROUP}/v1`;

interface ResourceAttributesSpec {
  verb?: string;
  resource?: string;
  subresource?: string;
  name?: string;
  namespace?: string;
  group?: string;
  version?: string;
  fieldSelector?: { rawSelector?: string; requirements?: Array<{ key?: string; operator?: string; values?: string[] }> };
}

interface AccessReviewSpec {
  user?: string;
  groups?: string[];
  uid?: string;
  resourceAttributes?: ResourceAttributesSpec;
  nonResourceAttributes?: { path?: string; verb?: string };
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

/** A review's field selector (rawSelector, or In/NotIn/Exists-free requirements) as the request's. */
function fieldSelectorOf(spec: ResourceAttributesSpec['fieldSelector']): Requirement[] {
  if (spec?.rawSelector) {
    try {
      return parseFieldSelector(spec.rawSelector);
    } catch {
      return [];
    }
  }
  return (spec?.requirements ?? [])
    .filter((r) => r.key && r.operator === 'In' && r.values?.length === 1)
    .map((r) => ({ key: r.key ?? '', op: 'eq' as const, values: r.values ?? [] }));
}

/** The attributes a review asks about (authorizationutil.ResourceAttributesFrom / NonResourceAttributesFrom). */
function attributesOf(user: ClientIdentity, spec: AccessReviewSpec): AuthorizationAttributes {
  const nonResource = spec.nonResourceAttributes;
  if (nonResource) return nonResourceAttributes(user, nonResource.verb ?? '', nonResource.path ?? '');
  const r = spec.resourceAttributes ?? {};
  return {
    user,
    verb: r.verb ?? '',
    resourceRequest: true,
    path: '',
    apiGroup: r.group ?? '',
    apiVersion: r.version ?? '',
    namespace: r.namespace ?? '',
    resource: r.resource ?? '',
    subresource: r.subresource ?? '',
    name: r.name ?? '',
    fieldSelector: fieldSelectorOf(r.fieldSelector),
  };
}

function attributeErrors(spec: AccessReviewSpec): FieldError[] {
  if (spec.resourceAttributes && spec.nonResourceAttributes) {
    return [invalidValue('spec.nonResourceAttributes', spec.nonResourceAttributes, 'cannot be specified in combination with resourceAttributes')];
  }
  if (!spec.resourceAttributes && !spec.nonResourceAttributes) {
    return [invalidValue('spec.resourceAttributes', null, 'exactly one of nonResourceAttributes or resourceAttributes must be specified')];
  }
  return [];
}

function decide(ctx: ServerContext, attributes: AuthorizationAttributes): object {
  const decided = ctx.authorizer.authorize(attributes);
  return {
    allowed: decided.decision === 'allow',
    ...(decided.decision === 'deny' ? { denied: true } : {}),
    ...(decided.reason ? { reason: decided.reason } : {}),
  };
}

function specOf(body: unknown): AccessReviewSpec {
  const spec = (body as { spec?: unknown } | undefined)?.spec;
  return spec && typeof spec === 'object' ? (spec as AccessReviewSpec) : {};
}

/** POST subjectaccessreviews: the chain's decision for the user, groups and attributes in the spec. */
export function subjectAccessReview(ctx: ServerContext, body: unknown): object {
  const spec = specOf(body);
  const errors = attributeErrors(spec);
  if (!spec.user && !spec.groups?.length) errors.push(invalidValue('spec.user', spec.user ?? '', 'at least one of user or group must be specified'));
  throwIfInvalid('SubjectAccessReview', AUTHORIZATION_GROUP, '', errors);
  const status = decide(ctx, attributesOf({ user: spec.user ?? '', groups: spec.groups ?? [] }, spec));
  return { kind: 'SubjectAccessReview', apiVersion: AUTHORIZATION_API_VERSION, metadata: { creationTimestamp: null }, spec, status };
}

/** POST selfsubjectaccessreviews: the same for the requester (`kubectl auth can-i`). */
export function selfSubjectAccessReview(ctx: ServerContext, requester: ClientIdentity, body: unknown): object {
  const spec = specOf(body);
  throwIfInvalid('SelfSubjectAccessReview', AUTHORIZATION_GROUP, '', attributeErrors(spec));
  const status = decide(ctx, attributesOf(requester, spec));
  return { kind: 'SelfSubjectAccessReview', apiVersion: AUTHORIZATION_API_VERSION, metadata: { creationTimestamp: null }, spec, status };
}

function ruleInfo(rule: PolicyRule): { resource?: object; nonResource?: object } {
  return {
    resource: rule.resources?.length
      ? { verbs: rule.verbs, apiGroups: rule.apiGroups ?? [], resources: rule.resources, ...(rule.resourceNames?.length ? { resourceNames: rule.resourceNames } : {}) }
      : undefined,
    nonResource: rule.nonResourceURLs?.length ? { verbs: rule.verbs, nonResourceURLs: rule.nonResourceURLs } : undefined,
  };
}

/** POST selfsubjectrulesreviews: what the requester may do in a namespace (`kubectl auth can-i --list`). */
export function selfSubjectRulesReview(ctx: ServerContext, requester: ClientIdentity, body: unknown): object {
  const spec = specOf(body) as { namespace?: string };
  if (!spec.namespace) throw badRequest('no namespace on request');
  const answer = ctx.authorizer.rulesFor(requester, spec.namespace ?? '');
  const infos = answer.rules.map(ruleInfo);
  const status = {
    resourceRules: infos.flatMap((i) => (i.resource ? [i.resource] : [])),
    nonResourceRules: infos.flatMap((i) => (i.nonResource ? [i.nonResource] : [])),
    incomplete: answer.incomplete,
    ...(answer.errors.length ? { evaluationError: answer.errors.length === 1 ? answer.errors[0] : `[${answer.errors.join(', ')}]` } : {}),
  };
  return { kind: 'SelfSubjectRulesReview', apiVersion: AUTHORIZATION_API_VERSION, metadata: { creationTimestamp: null }, spec, status };
}

/** The answer to a create of one of the review kinds (REVIEW_RESOURCES). */
export function answerReview(ctx: ServerContext, request: ResourceRequest, body: unknown): object {
  const requester = request.user ?? { user: '', groups: [] };
  switch (request.def.plural) {
    case 'tokenreviews': return tokenReview(ctx, body);
    case 'subjectaccessreviews': return subjectAccessReview(ctx, body);
    case 'selfsubjectaccessreviews': return selfSubjectAccessReview(ctx, requester, body);
    default: return selfSubjectRulesReview(ctx, requester, body);
  }
}
