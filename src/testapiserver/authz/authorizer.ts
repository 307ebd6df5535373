// The authorizer chain `--authorization-mode=Node,RBAC` builds (union.New): the
// first authorizer that allows or denies decides; otherwise the request is
// refused with every authorizer's reason. system:masters passes through RBAC's
// cluster-admin binding. With enforcement off the chain is AlwaysAllow, what
// this server did before it authorized anything. The same chain answers
// requests, SubjectAccessReviews and SelfSubjectRulesReviews.
import { ApiError } from '../api-error.js';
import type { Store } from '../store.js';
import type { ClientIdentity } from '../tls.js';
import type { AuthorizationAttributes } from './attributes.js';
import { NodeAuthorizer } from './node-authorizer.js';
import { NodeGraph } from './node-graph.js';
import { RbacAuthorizer, type Decision, type RulesAnswer } from './rbac-authorizer.js';

export interface Authorizer {
  authorize(attributes: AuthorizationAttributes): Decision;
  rulesFor(user: ClientIdentity, namespace: string): RulesAnswer;
  /** The RBAC part on its own, for the escalation checks on roles and bindings. */
  readonly rbac: RbacAuthorizer;
  stop(): void;
}

/** Node,RBAC. */
export function nodeAndRbacAuthorizer(store: Store): Authorizer {
  const graph = new NodeGraph(store);
  const node = new NodeAuthorizer(graph);
  const rbac = new RbacAuthorizer(store);
  return {
    rbac,
    authorize: (attributes) => {
      const reasons: string[] = [];
      for (const authorizer of [node, rbac]) {
        const decided = authorizer.authorize(attributes);
        if (decided.decision !== 'noOpinion') return decided;
        if (decided.reason) reasons.push(decided.reason);
      }
      return { decision: 'noOpinion', reason: reasons.join('\n') };
    },
    rulesFor: (user, namespace) => {
      const answers = [node.rulesFor(user), rbac.rulesFor(user, namespace)].filter((a): a is RulesAnswer => a !== undefined);
      return { rules: answers.flatMap((a) => a.rules), incomplete: answers.some((a) => a.incomplete), errors: answers.flatMap((a) => a.errors) };
    },
    stop: () => graph.stop(),
  };
}

/** AlwaysAllow: every authenticated request may do everything. */
export function alwaysAllowAuthorizer(store: Store): Authorizer {
  return {
    rbac: new RbacAuthorizer(store),
    authorize: () => ({ decision: 'allow', reason: '' }),
    rulesFor: () => ({ rules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }, { verbs: ['*'], nonResourceURLs: ['*'] }], incomplete: false, errors: [] }),
    stop: () => {},
  };
}

/** What the forbidden message says the user cannot do (responsewriters.forbiddenMessage). */
function forbiddenMessage(attributes: AuthorizationAttributes): string {
  const user = attributes.user.user;
  if (!attributes.resourceRequest) return `User "${user}" cannot ${attributes.verb} path "${attributes.path}"`;
  const resource = attributes.subresource ? `${attributes.resource}/${attributes.subresource}` : attributes.resource;
  const where = attributes.namespace ? `in the namespace "${attributes.namespace}"` : 'at the cluster scope';
  return `User "${user}" cannot ${attributes.verb} resource "${resource}" in API group "${attributes.apiGroup}" ${where}`;
}

/** The 403 a refused request gets (responsewriters.ForbiddenStatusError over apierrors.NewForbidden). */
export function forbiddenError(attributes: AuthorizationAttributes, reason: string): ApiError {
  const detail = reason ? `${forbiddenMessage(attributes)}: ${reason}` : forbiddenMessage(attributes);
  if (!attributes.resourceRequest) return new ApiError(403, 'Forbidden', `forbidden: ${detail}`, {});
  const resource = attributes.apiGroup ? `${attributes.resource}.${attributes.apiGroup}` : attributes.resource;
  const subject = attributes.name ? `${resource} "${attributes.name}"` : resource;
  return new ApiError(403, 'Forbidden', `${subject} is forbidden: ${detail}`, {
    name: attributes.name || undefined,
    group: attributes.apiGroup || undefined,
    kind: attributes.resource,
  });
}

/** Throws the 403 unless the chain allows the request. */
export function authorizeOrThrow(authorizer: Authorizer, attributes: AuthorizationAttributes): void {
  const decided = authorizer.authorize(attributes);
  if (decided.decision !== 'allow') throw forbiddenError(attributes, decided.reason);
}

const WEBSOCKET_STREAMS = new Set(['exec', 'attach', 'portforward']);

/**
 * What an upgrade (exec, attach, port-forward, proxied WebSocket) is authorized
 * as, in order: a WebSocket GET on pods/exec|attach|portforward needs `create` as
 * well as `get`, as with AuthorizePodWebsocketUpgradeCreatePermission (on by
 * default since 1.31).
 */
export function upgradeAttributeSets(attributes: AuthorizationAttributes): AuthorizationAttributes[] {
  const websocketStream = attributes.verb === 'get' && attributes.apiGroup === '' && attributes.resource === 'pods' && WEBSOCKET_STREAMS.has(attributes.subresource);
  return websocketStream ? [attributes, { ...attributes, verb: 'create' }] : [attributes];
}
