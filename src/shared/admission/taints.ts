// Taints and tolerations, as core/v1 Toleration.ToleratesTaint and component-helpers'
// FindMatchingUntoleratedTaint. The comparison operators (Lt/Gt) sit behind the alpha
// TaintTolerationComparisonOperators gate upstream, off by default: such a toleration
// tolerates nothing here.
import type { V1Toleration } from '@kubernetes/client-node';

export interface NodeTaint {
  key: string;
  value?: string;
  effect: string;
}

export const TAINT_EFFECT_NO_EXECUTE = 'NoExecute';

/** As Toleration.ToleratesTaint: effect and key match when set; Equal compares values, Exists does not. */
export function toleratesTaint(toleration: V1Toleration, taint: NodeTaint): boolean {
  if (toleration.effect && toleration.effect !== taint.effect) return false;
  if (toleration.key && toleration.key !== taint.key) return false;
  switch (toleration.operator ?? '') {
    case '':
    case 'Equal':
      return (toleration.value ?? '') === (taint.value ?? '');
    case 'Exists':
      return true;
    default:
      return false;
  }
}

/** As FindMatchingUntoleratedTaint: the first taint passing the filter that no toleration tolerates. */
export function findUntoleratedTaint(
  taints: readonly NodeTaint[],
  tolerations: readonly V1Toleration[],
  inclusionFilter: (taint: NodeTaint) => boolean,
): NodeTaint | undefined {
  return taints.find(
    (taint) => inclusionFilter(taint) && !tolerations.some((toleration) => toleratesTaint(toleration, taint)),
  );
}
