// The RBAC-like rule table behind the test API server's SubjectAccessReviews:
// who (users or groups) may do which verbs on which resources and subresources,
// set by tests. system:masters may do everything, as RBAC's superuser group.

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

export interface ResourceAttributes {
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
