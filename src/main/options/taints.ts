// Node taints for registration (--register-with-taints / registerWithTaints),
// parsed and checked as upstream's pkg/util/taints (ParseTaints,
// CheckTaintValidation).
import { labelValueError, qualifiedNameError } from '../../shared/manifest/names.js';
import type { NodeTaint } from './kubelet-options.js';

export const TAINT_EFFECTS: ReadonlyArray<NodeTaint['effect']> = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];

/** Why a taint is invalid, or undefined when it is valid. */
export function taintError(taint: { key?: unknown; value?: unknown; effect?: unknown }): string | undefined {
  if (typeof taint.key !== 'string') return 'key is required';
  const keyError = qualifiedNameError(taint.key);
  if (keyError) return `key ${JSON.stringify(taint.key)}: ${keyError}`;
  if (taint.value !== undefined) {
    if (typeof taint.value !== 'string') return 'value must be a string';
    const valueError = labelValueError(taint.value);
    if (valueError) return `value ${JSON.stringify(taint.value)}: ${valueError}`;
  }
  if (!TAINT_EFFECTS.includes(taint.effect as NodeTaint['effect'])) {
    return `effect ${JSON.stringify(taint.effect ?? '')} must be one of ${TAINT_EFFECTS.join(', ')}`;
  }
  return undefined;
}

/** Parses one "key=value:Effect" or "key:Effect" spec; throws a plain Error with the reason. */
export function parseTaintSpec(spec: string): NodeTaint {
  const colon = spec.lastIndexOf(':');
  if (colon < 0) throw new Error(`invalid taint spec ${JSON.stringify(spec)}: want key=value:Effect or key:Effect`);
  const keyValue = spec.slice(0, colon);
  const effect = spec.slice(colon + 1);
  const equals = keyValue.indexOf('=');
  const taint: NodeTaint = equals < 0
    ? { key: keyValue, effect: effect as NodeTaint['effect'] }
    : { key: keyValue.slice(0, equals), value: keyValue.slice(equals + 1), effect: effect as NodeTaint['effect'] };
  const reason = taintError(taint);
  if (reason) throw new Error(`invalid taint spec ${JSON.stringify(spec)}: ${reason}`);
  return taint;
}
