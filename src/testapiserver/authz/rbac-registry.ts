// What kube-apiserver's rbac registry does with a Role, ClusterRole, RoleBinding
// or ClusterRoleBinding before it stores one: the v1 defaults (a binding's
// roleRef.apiGroup, User and Group subjects' apiGroup), the escalation check of
// the policybased storage (only a user who holds every permission a role grants,
// or may `escalate`, writes the role; only one who holds the permissions of the
// referenced role, or may `bind` it, writes the binding; system:masters always
// may), then pkg/apis/rbac/validation (422).
import type { AdmissionAttributes, Admit } from '../admission.js';
import { ApiError } from '../api-error.js';
import { forbidden as forbiddenField, invalidValue, notSupported, required, throwIfInvalid, type FieldError } from '../field-errors.js';
import type { ClientIdentity } from '../tls.js';
import type { KubeObject } from '../types.js';
import type { Authorizer } from './authorizer.js';
import { SYSTEM_MASTERS } from './bootstrap-policy.js';
import { compactRules, compactString, goQuotedList, uncoveredRules, type PolicyRule } from './policy-rule.js';
import { CLUSTER_ROLE_BINDINGS, RBAC_GROUP, ROLE_BINDINGS, type RoleRef, type Subject } from './rbac-resources.js';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const KINDS: Record<string, string> = { roles: 'Role', clusterroles: 'ClusterRole', rolebindings: 'RoleBinding', clusterrolebindings: 'ClusterRoleBinding' };
const FULL_AUTHORITY: PolicyRule[] = [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }, { verbs: ['*'], nonResourceURLs: ['*'] }];

/** SetDefaults_RoleBinding / _ClusterRoleBinding / _Subject, by storage key. */
export function defaultRbacObject(storageKey: string, obj: KubeObject): void {
  if (storageKey !== ROLE_BINDINGS.key && storageKey !== CLUSTER_ROLE_BINDINGS.key) return;
  const roleRef = (obj.roleRef ??= {}) as RoleRef;
  if (!roleRef.apiGroup) roleRef.apiGroup = RBAC_GROUP;
  for (const subject of (obj.subjects as Subject[] | undefined) ?? []) {
    if ((subject.kind === 'User' || subject.kind === 'Group') && !subject.apiGroup) subject.apiGroup = RBAC_GROUP;
  }
}

/** ValidateRBACName (path.IsValidPathSegmentName). */
function rbacNameErrors(field: string, name: unknown): FieldError[] {
  if (typeof name !== 'string' || name === '') return [required(field)];
  if (name === '.' || name === '..') return [invalidValue(field, name, `may not be '${name}'`)];
  return ['/', '%'].filter((c) => name.includes(c)).map((c) => invalidValue(field, name, `may not contain '${c}'`));
}

function ruleErrors(rules: Obj[], namespaced: boolean): FieldError[] {
  return rules.flatMap((rule, i) => {
    const at = `rules[${i}]`;
    const errors: FieldError[] = [];
    if (!rule.verbs?.length) errors.push(required(`${at}.verbs`, 'verbs must contain at least one value'));
    if (rule.nonResourceURLs?.length) {
      if (namespaced) errors.push(invalidValue(`${at}.nonResourceURLs`, rule.nonResourceURLs, 'namespaced rules cannot apply to non-resource URLs'));
      if (rule.apiGroups?.length || rule.resources?.length || rule.resourceNames?.length) {
        errors.push(invalidValue(`${at}.nonResourceURLs`, rule.nonResourceURLs, 'rules cannot apply to both regular resources and non-resource URLs'));
      }
      return errors;
    }
    if (!rule.apiGroups?.length) errors.push(required(`${at}.apiGroups`, 'resource rules must supply at least one api group'));
    if (!rule.resources?.length) errors.push(required(`${at}.resources`, 'resource rules must supply at least one resource'));
    return errors;
  });
}

function subjectErrors(subjects: Obj[], namespaced: boolean): FieldError[] {
  return subjects.flatMap((subject, i) => {
    const at = `subjects[${i}]`;
    const errors: FieldError[] = subject.name ? [] : [required(`${at}.name`)];
    if (subject.kind === 'ServiceAccount') {
      if (subject.apiGroup) errors.push(notSupported(`${at}.apiGroup`, subject.apiGroup, ['']));
      if (!namespaced && !subject.namespace) errors.push(required(`${at}.namespace`));
    } else if (subject.kind === 'User' || subject.kind === 'Group') {
      if (subject.apiGroup !== RBAC_GROUP) errors.push(notSupported(`${at}.apiGroup`, subject.apiGroup ?? '', [RBAC_GROUP]));
    } else errors.push(notSupported(`${at}.kind`, subject.kind ?? '', ['ServiceAccount', 'User', 'Group']));
    return errors;
  });
}

function bindingErrors(obj: Obj, old: Obj | undefined, clusterScoped: boolean): FieldError[] {
  const roleRef: RoleRef = obj.roleRef ?? {};
  const errors: FieldError[] = [];
  if (roleRef.apiGroup !== RBAC_GROUP) errors.push(notSupported('roleRef.apiGroup', roleRef.apiGroup ?? '', [RBAC_GROUP]));
  const kinds = clusterScoped ? ['ClusterRole'] : ['Role', 'ClusterRole'];
  if (!kinds.includes(roleRef.kind ?? '')) errors.push(notSupported('roleRef.kind', roleRef.kind ?? '', kinds));
  errors.push(...rbacNameErrors('roleRef.name', roleRef.name));
  errors.push(...subjectErrors(Array.isArray(obj.subjects) ? obj.subjects : [], !clusterScoped));
  const oldRef = old?.roleRef as RoleRef | undefined;
  if (oldRef && (oldRef.apiGroup !== roleRef.apiGroup || oldRef.kind !== roleRef.kind || oldRef.name !== roleRef.name)) {
    errors.push(invalidValue('roleRef', roleRef, 'cannot change roleRef'));
  }
  return errors;
}

function validationErrors(a: AdmissionAttributes, obj: Obj): FieldError[] {
  const errors = rbacNameErrors('metadata.name', obj.metadata?.name);
  if (a.resource === 'roles' || a.resource === 'clusterroles') {
    if (obj.rules !== undefined && !Array.isArray(obj.rules)) return [...errors, forbiddenField('rules', 'must be a list')];
    errors.push(...ruleErrors(obj.rules ?? [], a.resource === 'roles'));
  } else errors.push(...bindingErrors(obj, a.oldObject, a.resource === 'clusterrolebindings'));
  return errors;
}

export class RbacRegistry {
  constructor(private readonly authorizer: () => Authorizer) {}

  readonly admit: Admit = (a) => {
    if (a.group !== RBAC_GROUP || !KINDS[a.resource] || a.operation === 'DELETE' || !a.object) return;
    if (a.user && !a.user.groups.includes(SYSTEM_MASTERS)) this.confirmNoEscalation(a, a.user, a.object);
    throwIfInvalid(KINDS[a.resource], RBAC_GROUP, a.object.metadata.name, validationErrors(a, a.object));
  };

  /** The SubjectAccessReview the registry asks: may the user `escalate` roles or `bind` this role? */
  private mayDo(user: ClientIdentity, verb: string, resource: string, namespace: string, name: string): boolean {
    return this.authorizer().authorize({
      user, verb, resourceRequest: true, path: '', apiGroup: RBAC_GROUP, apiVersion: 'v1', namespace, resource, subresource: '', name, fieldSelector: [],
    }).decision === 'allow';
  }

  private confirmNoEscalation(a: AdmissionAttributes, user: ClientIdentity, obj: KubeObject): void {
    let wanted: PolicyRule[];
    if (a.resource === 'roles' || a.resource === 'clusterroles') {
      if (this.mayDo(user, 'escalate', a.resource, a.namespace, obj.metadata.name)) return;
      wanted = obj.aggregationRule ? FULL_AUTHORITY : ((obj.rules as PolicyRule[] | undefined) ?? []);
    } else {
      const roleRef = (obj.roleRef ?? {}) as RoleRef;
      // Asked in the binding's namespace, so a RoleBinding can be delegated to bind a ClusterRole in one namespace.
      const roleResource = roleRef.kind === 'Role' ? 'roles' : 'clusterroles';
      if (this.mayDo(user, 'bind', roleResource, a.namespace, roleRef.name ?? '')) return;
      try {
        wanted = this.authorizer().rbac.roleReferenceRules(roleRef, a.namespace);
      } catch (err) {
        throw this.forbidden(a, obj, (err as Error).message);
      }
    }
    const owned = this.authorizer().rbac.rulesFor(user, a.namespace);
    const missing = uncoveredRules(owned.rules, wanted);
    if (missing.length === 0) return;
    const described = [...new Set(compactRules(missing).map(compactString))].sort();
    let message = `user "${user.user}" (groups=${goQuotedList(user.groups)}) is attempting to grant RBAC permissions not currently held:\n${described.join('\n')}`;
    if (owned.errors.length > 0) message += `; resolution errors: [${owned.errors.join(' ')}]`;
    throw this.forbidden(a, obj, message);
  }

  private forbidden(a: AdmissionAttributes, obj: KubeObject, reason: string): ApiError {
    const name = obj.metadata.name;
    return new ApiError(403, 'Forbidden', `${a.resource}.${RBAC_GROUP} "${name}" is forbidden: ${reason}`, { name, group: RBAC_GROUP, kind: a.resource });
  }
}
