// kube-controller-manager's clusterrole-aggregation controller, in-process: a
// ClusterRole with an aggregationRule gets, as its rules, the rules of every other
// ClusterRole (by name) whose labels one of its selectors matches, so `admin`,
// `edit` and `view` grow with the roles labelled aggregate-to-*. Like the
// controller it runs after the write that changed a role, not inside it.
import { matchesLabels, type Requirement } from '../selectors.js';
import type { Store } from '../store.js';
import type { KubeObject } from '../types.js';
import type { PolicyRule } from './policy-rule.js';
import { CLUSTER_ROLES } from './rbac-resources.js';

interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: Array<{ key: string; operator: string; values?: string[] }>;
}

const MAX_SETTLE_PASSES = 10;
const OPERATORS: Record<string, Requirement['op']> = { In: 'in', NotIn: 'notin', Exists: 'exists', DoesNotExist: 'notexists' };

/** A metav1.LabelSelector as requirements; undefined when an operator is unknown (it then matches nothing). */
function requirementsOf(selector: LabelSelector): Requirement[] | undefined {
  const requirements: Requirement[] = Object.entries(selector.matchLabels ?? {}).map(([key, value]) => ({ key, op: 'eq', values: [value] }));
  for (const expression of selector.matchExpressions ?? []) {
    const op = OPERATORS[expression.operator];
    if (!op) return undefined;
    requirements.push({ key: expression.key, op, values: expression.values ?? [] });
  }
  return requirements;
}

function selectorsOf(role: Readonly<KubeObject>): LabelSelector[] | undefined {
  const rule = role.aggregationRule as { clusterRoleSelectors?: LabelSelector[] } | undefined;
  return rule ? rule.clusterRoleSelectors ?? [] : undefined;
}

export class ClusterRoleAggregator {
  private scheduled = false;
  private unsubscribe: () => void = () => {};

  constructor(private readonly store: Store) {}

  start(): void {
    // An aggregated role can aggregate others (admin takes edit, which takes view): settle before serving.
    for (let pass = 0; pass < MAX_SETTLE_PASSES && this.reconcile(); pass++);
    this.unsubscribe = this.store.watch(CLUSTER_ROLES, this.store.currentResourceVersion(), () => this.schedule());
  }

  stop(): void {
    this.unsubscribe();
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(() => {
      this.scheduled = false;
      this.reconcile();
    });
  }

  /** Writes the aggregated rules of every aggregating ClusterRole whose rules are not what they should be; true if any changed. */
  reconcile(): boolean {
    let changed = false;
    const roles = [...this.store.scan(CLUSTER_ROLES)].sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
    for (const role of roles) {
      const selectors = selectorsOf(role);
      if (!selectors) continue;
      const rules: PolicyRule[] = [];
      const seen = new Set<string>();
      for (const selector of selectors) {
        const requirements = requirementsOf(selector);
        if (!requirements) continue;
        for (const other of roles) {
          if (other.metadata.name === role.metadata.name || !matchesLabels(requirements, other.metadata.labels)) continue;
          for (const rule of (other.rules as PolicyRule[] | undefined) ?? []) {
            const key = JSON.stringify(rule);
            if (!seen.has(key)) rules.push(rule);
            seen.add(key);
          }
        }
      }
      if (JSON.stringify(role.rules ?? []) === JSON.stringify(rules)) continue;
      const updated = this.store.get(CLUSTER_ROLES, undefined, role.metadata.name);
      if (!updated) continue;
      updated.rules = structuredClone(rules);
      this.store.update(CLUSTER_ROLES, updated);
      changed = true;
    }
    return changed;
  }
}
