// rbac/v1 PolicyRules: whether one allows a request (upstream's rbac.RuleAllows
// and the rbacv1helpers matchers) and whether a set of rules covers another
// (validation.Covers, behind the escalation check on roles and bindings).
import type { AuthorizationAttributes } from './attributes.js';

export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

const ALL = '*';

const has = (set: string[] | undefined, value: string): boolean => (set ?? []).includes(value);
const hasAll = (set: string[] | undefined, values: string[] | undefined): boolean => (values ?? []).every((v) => has(set, v));

function verbMatches(rule: PolicyRule, verb: string): boolean {
  return has(rule.verbs, ALL) || has(rule.verbs, verb);
}

function apiGroupMatches(rule: PolicyRule, group: string): boolean {
  return has(rule.apiGroups, ALL) || has(rule.apiGroups, group);
}

/** `pods`, `pods/status`, `*`, and `*\/status` for the status of anything. */
function resourceMatches(rule: PolicyRule, combined: string, subresource: string): boolean {
  return (rule.resources ?? []).some(
    (r) => r === ALL || r === combined || (subresource !== '' && r === `*/${subresource}`),
  );
}

function resourceNameMatches(rule: PolicyRule, name: string): boolean {
  return (rule.resourceNames ?? []).length === 0 || has(rule.resourceNames, name);
}

/** `/healthz`, `*`, and `/apis/*` for anything under /apis/. */
function nonResourceUrlCovers(ruleUrl: string, path: string): boolean {
  return ruleUrl === ALL || ruleUrl === path || (ruleUrl.endsWith('*') && path.startsWith(ruleUrl.replace(/\*+$/, '')));
}

export function ruleAllows(attributes: AuthorizationAttributes, rule: PolicyRule): boolean {
  if (!verbMatches(rule, attributes.verb)) return false;
  if (!attributes.resourceRequest) return (rule.nonResourceURLs ?? []).some((url) => nonResourceUrlCovers(url, attributes.path));
  const combined = attributes.subresource ? `${attributes.resource}/${attributes.subresource}` : attributes.resource;
  return apiGroupMatches(rule, attributes.apiGroup) && resourceMatches(rule, combined, attributes.subresource) && resourceNameMatches(rule, attributes.name);
}

export function rulesAllow(attributes: AuthorizationAttributes, rules: PolicyRule[]): boolean {
  return rules.some((rule) => ruleAllows(attributes, rule));
}

/** One rule per group × resource × verb (× name), and per URL × verb (BreakdownRule). */
function breakdown(rule: PolicyRule): PolicyRule[] {
  const atoms: PolicyRule[] = [];
  for (const group of rule.apiGroups ?? []) {
    for (const resource of rule.resources ?? []) {
      for (const verb of rule.verbs) {
        const names = rule.resourceNames ?? [];
        if (names.length === 0) atoms.push({ apiGroups: [group], resources: [resource], verbs: [verb] });
        for (const name of names) atoms.push({ apiGroups: [group], resources: [resource], verbs: [verb], resourceNames: [name] });
      }
    }
  }
  for (const url of rule.nonResourceURLs ?? []) for (const verb of rule.verbs) atoms.push({ nonResourceURLs: [url], verbs: [verb] });
  return atoms;
}

function resourcesCoverAll(owned: string[] | undefined, wanted: string[] | undefined): boolean {
  if (has(owned, ALL) || hasAll(owned, wanted)) return true;
  return (wanted ?? []).every((path) => {
    if (has(owned, path)) return true;
    const slash = path.indexOf('/');
    return slash >= 0 && has(owned, `*/${path.slice(slash + 1)}`);
  });
}

function ruleCovers(owner: PolicyRule, atom: PolicyRule): boolean {
  const ownerNames = owner.resourceNames ?? [];
  const names = (atom.resourceNames ?? []).length === 0 ? ownerNames.length === 0 : ownerNames.length === 0 || hasAll(ownerNames, atom.resourceNames);
  return (has(owner.verbs, ALL) || hasAll(owner.verbs, atom.verbs)) &&
    (has(owner.apiGroups, ALL) || hasAll(owner.apiGroups, atom.apiGroups)) &&
    resourcesCoverAll(owner.resources, atom.resources) &&
    names &&
    (atom.nonResourceURLs ?? []).every((url) => (owner.nonResourceURLs ?? []).some((ownerUrl) => nonResourceUrlCovers(ownerUrl, url)));
}

/** The parts of `wanted` no rule of `owned` covers; empty when `owned` covers it all (validation.Covers). */
export function uncoveredRules(owned: PolicyRule[], wanted: PolicyRule[]): PolicyRule[] {
  return wanted.flatMap(breakdown).filter((atom) => !owned.some((owner) => ruleCovers(owner, atom)));
}

/** Atoms that differ only in their verb, as one rule (validation.CompactRules). */
export function compactRules(rules: PolicyRule[]): PolicyRule[] {
  const byTarget = new Map<string, PolicyRule>();
  const compacted: PolicyRule[] = [];
  for (const rule of rules) {
    if (rule.nonResourceURLs?.length) {
      compacted.push(rule);
      continue;
    }
    const key = JSON.stringify([rule.apiGroups, rule.resources, rule.resourceNames ?? []]);
    const existing = byTarget.get(key);
    if (existing) {
      for (const verb of rule.verbs) if (!existing.verbs.includes(verb)) existing.verbs.push(verb);
    } else {
      const copy = { ...rule, verbs: [...rule.verbs] };
      byTarget.set(key, copy);
      compacted.push(copy);
    }
  }
  return compacted;
}

/** Go's %q of a []string: `["a" "b"]`. */
export function goQuotedList(values: string[]): string {
  return `[${values.map((v) => JSON.stringify(v)).join(' ')}]`;
}

/** `{APIGroups:[""], Resources:["pods"], Verbs:["get"]}` (rbacv1helpers.CompactString). */
export function compactString(rule: PolicyRule): string {
  const parts: string[] = [];
  if (rule.apiGroups?.length) parts.push(`APIGroups:${goQuotedList(rule.apiGroups)}`);
  if (rule.resources?.length) parts.push(`Resources:${goQuotedList(rule.resources)}`);
  if (rule.nonResourceURLs?.length) parts.push(`NonResourceURLs:${goQuotedList(rule.nonResourceURLs)}`);
  if (rule.resourceNames?.length) parts.push(`ResourceNames:${goQuotedList(rule.resourceNames)}`);
  if (rule.verbs.length) parts.push(`Verbs:${goQuotedList(rule.verbs)}`);
  return `{${parts.join(', ')}}`;
}
