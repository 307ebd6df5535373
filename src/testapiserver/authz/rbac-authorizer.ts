// The RBAC authorizer over the stored Roles, ClusterRoles and their bindings, as
// upstream's RBACAuthorizer and DefaultRuleResolver: ClusterRoleBindings apply
// everywhere, RoleBindings only in their namespace; a binding whose role is
// missing contributes an error, which becomes the reason of a refusal. RBAC
// never denies: it allows, or has no opinion.
import type { Store } from '../store.js';
import type { ClientIdentity } from '../tls.js';
import type { KubeObject } from '../types.js';
import type { AuthorizationAttributes } from './attributes.js';
import { ruleAllows, type PolicyRule } from './policy-rule.js';
import { CLUSTER_ROLE_BINDINGS, CLUSTER_ROLES, ROLE_BINDINGS, ROLES, type RoleRef, type Subject } from './rbac-resources.js';

export interface Decision {
  decision: 'allow' | 'deny' | 'noOpinion';
  reason: string;
}

/** What a SelfSubjectRulesReview reports (the RuleResolver answer). */
export interface RulesAnswer {
  rules: PolicyRule[];
  incomplete: boolean;
  errors: string[];
}

const SERVICE_ACCOUNT_PREFIX = 'system:serviceaccount:';

/** utilerrors.NewAggregate(errs).Error(). */
export function aggregateMessage(messages: string[]): string {
  return messages.length === 1 ? messages[0] : `[${messages.join(', ')}]`;
}

function appliesToUser(user: ClientIdentity, subject: Subject, bindingNamespace: string): boolean {
  switch (subject.kind) {
    case 'User': return user.user === subject.name;
    case 'Group': return user.groups.includes(subject.name ?? '');
    case 'ServiceAccount': {
      const namespace = subject.namespace || bindingNamespace;
      return namespace !== '' && user.user === `${SERVICE_ACCOUNT_PREFIX}${namespace}:${subject.name}`;
    }
    default: return false;
  }
}

function describeSubject(subject: Subject, bindingNamespace: string): string {
  if (subject.kind === 'ServiceAccount') return `ServiceAccount "${subject.name}/${subject.namespace || bindingNamespace}"`;
  return `${subject.kind} "${subject.name}"`;
}

type Visitor = (source: string, rule: PolicyRule | undefined, error: string | undefined) => boolean;

export class RbacAuthorizer {
  constructor(private readonly store: Store) {}

  /** The rules a binding's roleRef names (GetRoleReferenceRules); throws an Error naming what is missing. */
  roleReferenceRules(roleRef: RoleRef | undefined, bindingNamespace: string): PolicyRule[] {
    const name = roleRef?.name ?? '';
    if (roleRef?.kind === 'Role') {
      const role = this.store.peek(ROLES, bindingNamespace, name);
      if (!role) throw new Error(`role.rbac.authorization.k8s.io "${name}" not found`);
      return (role.rules as PolicyRule[] | undefined) ?? [];
    }
    if (roleRef?.kind === 'ClusterRole') {
      const role = this.store.peek(CLUSTER_ROLES, undefined, name);
      if (!role) throw new Error(`clusterrole.rbac.authorization.k8s.io "${name}" not found`);
      return (role.rules as PolicyRule[] | undefined) ?? [];
    }
    throw new Error(`unsupported role reference kind: "${roleRef?.kind ?? ''}"`);
  }

  /** Calls `visit` with each rule that applies to the user in the namespace, until it returns false. */
  private visitRulesFor(user: ClientIdentity, namespace: string, visit: Visitor): void {
    const bindings: Array<{ binding: Readonly<KubeObject>; namespace: string }> = [];
    for (const binding of this.store.scan(CLUSTER_ROLE_BINDINGS)) bindings.push({ binding, namespace: '' });
    if (namespace) for (const binding of this.store.scan(ROLE_BINDINGS, namespace)) bindings.push({ binding, namespace });
    for (const { binding, namespace: bindingNamespace } of bindings) {
      const subjects = (binding.subjects as Subject[] | undefined) ?? [];
      const subject = subjects.find((s) => appliesToUser(user, s, bindingNamespace));
      if (!subject) continue;
      const roleRef = binding.roleRef as RoleRef | undefined;
      let rules: PolicyRule[];
      try {
        rules = this.roleReferenceRules(roleRef, bindingNamespace);
      } catch (err) {
        if (!visit('', undefined, (err as Error).message)) return;
        continue;
      }
      const source = bindingNamespace
        ? `RoleBinding "${binding.metadata.name}/${bindingNamespace}" of ${roleRef?.kind} "${roleRef?.name}" to ${describeSubject(subject, bindingNamespace)}`
        : `ClusterRoleBinding "${binding.metadata.name}" of ${roleRef?.kind} "${roleRef?.name}" to ${describeSubject(subject, '')}`;
      for (const rule of rules) if (!visit(source, rule, undefined)) return;
    }
  }

  authorize(attributes: AuthorizationAttributes): Decision {
    let allowedBy: string | undefined;
    const errors: string[] = [];
    this.visitRulesFor(attributes.user, attributes.namespace, (source, rule, error) => {
      if (error !== undefined) errors.push(error);
      else if (rule && ruleAllows(attributes, rule)) allowedBy = source;
      return allowedBy === undefined;
    });
    if (allowedBy !== undefined) return { decision: 'allow', reason: `RBAC: allowed by ${allowedBy}` };
    return { decision: 'noOpinion', reason: errors.length > 0 ? `RBAC: ${aggregateMessage(errors)}` : '' };
  }

  rulesFor(user: ClientIdentity, namespace: string): RulesAnswer {
    const rules: PolicyRule[] = [];
    const errors: string[] = [];
    this.visitRulesFor(user, namespace, (_source, rule, error) => {
      if (error !== undefined) errors.push(error);
      else if (rule) rules.push(rule);
      return true;
    });
    return { rules, incomplete: false, errors };
  }
}
