// Required node affinity, as component-helpers' nodeaffinity.GetRequiredNodeAffinity
// (...).Match: spec.nodeSelector must match the node's labels exactly, and the
// requiredDuringSchedulingIgnoredDuringExecution terms are ORed, each term ANDing its
// matchExpressions (labels) and matchFields (metadata.name). An empty term selects
// nothing; a term that would not parse (bad operator, wrong value count, a Gt/Lt value
// that is not an int64) does not match, as the LazyErrorNodeSelector treats it.
import type { V1NodeSelectorRequirement, V1NodeSelectorTerm } from '@kubernetes/client-node';
import type { Pod } from '../types.js';

/** The node as the selector sees it: its labels and the one field upstream exposes. */
export interface NodeForAffinity {
  name: string;
  labels: Record<string, string>;
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** As strconv.ParseInt(s, 10, 64): optional sign, decimal digits, int64 range; else undefined. */
export function parseInt64(text: string): bigint | undefined {
  if (!/^[+-]?\d+$/.test(text)) return undefined;
  const value = BigInt(text);
  return value < INT64_MIN || value > INT64_MAX ? undefined : value;
}

/** True when labels.NewRequirement would accept this operator / values combination. */
function isValidLabelRequirement(requirement: V1NodeSelectorRequirement): boolean {
  const values = requirement.values ?? [];
  switch (requirement.operator) {
    case 'In':
    case 'NotIn':
      return values.length > 0;
    case 'Exists':
    case 'DoesNotExist':
      return values.length === 0;
    case 'Gt':
    case 'Lt':
      return values.length === 1 && parseInt64(values[0]) !== undefined;
    default:
      return false;
  }
}

/** As labels.Requirement.Matches for the node selector operators. */
function labelRequirementMatches(requirement: V1NodeSelectorRequirement, labels: Record<string, string>): boolean {
  const has = Object.hasOwn(labels, requirement.key);
  const values = requirement.values ?? [];
  switch (requirement.operator) {
    case 'In':
      return has && values.includes(labels[requirement.key]);
    case 'NotIn':
      return !has || !values.includes(labels[requirement.key]);
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
    case 'Gt':
    case 'Lt': {
      if (!has) return false;
      const nodeValue = parseInt64(labels[requirement.key]);
      const bound = parseInt64(values[0]);
      if (nodeValue === undefined || bound === undefined) return false;
      return requirement.operator === 'Gt' ? nodeValue > bound : nodeValue < bound;
    }
    default:
      return false;
  }
}

/** Field selectors allow only In / NotIn with exactly one value (nodeSelectorRequirementsAsFieldSelector). */
function isValidFieldRequirement(requirement: V1NodeSelectorRequirement): boolean {
  const operatorOk = requirement.operator === 'In' || requirement.operator === 'NotIn';
  return operatorOk && (requirement.values ?? []).length === 1;
}

/** As a fields.Set lookup: metadata.name is the only node field; any other reads as "". */
function fieldRequirementMatches(requirement: V1NodeSelectorRequirement, node: NodeForAffinity): boolean {
  const fieldValue = requirement.key === 'metadata.name' ? node.name : '';
  const equal = fieldValue === (requirement.values ?? [])[0];
  return requirement.operator === 'In' ? equal : !equal;
}

/** One nodeSelectorTerm; empty or unparsable terms never match. */
export function nodeSelectorTermMatches(term: V1NodeSelectorTerm, node: NodeForAffinity): boolean {
  const expressions = term.matchExpressions ?? [];
  const fields = term.matchFields ?? [];
  if (expressions.length === 0 && fields.length === 0) return false;
  if (!expressions.every(isValidLabelRequirement) || !fields.every(isValidFieldRequirement)) return false;
  if (!expressions.every((requirement) => labelRequirementMatches(requirement, node.labels))) return false;
  // Upstream skips the field selector when the node has no fields (an unnamed node).
  if (node.name === '') return true;
  return fields.every((requirement) => fieldRequirementMatches(requirement, node));
}

/** As RequiredNodeAffinity.Match: nodeSelector, then the required terms (ORed). */
export function requiredNodeAffinityMatches(pod: Pod, node: NodeForAffinity): boolean {
  const nodeSelector = pod.spec?.nodeSelector ?? {};
  for (const [key, value] of Object.entries(nodeSelector)) {
    if (!Object.hasOwn(node.labels, key) || node.labels[key] !== value) return false;
  }
  const required = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  if (!required) return true;
  return (required.nodeSelectorTerms ?? []).some((term) => nodeSelectorTermMatches(term, node));
}
