// Feature gates as upstream's component-base featuregate: --feature-gates takes
// "Name=true,Other=false", the config file's featureGates a map. A name the 1.36
// kubelet does not register is refused ("unrecognized feature gate"), and so is
// the other value of a gate locked to its default; setting a GA or deprecated
// gate is allowed with upstream's warning that it will be removed.
import { FEATURE_GATE_SPECS, type FeatureGateSpec } from './feature-gate-specs.js';

/** component-base's two meta-gates: they turn on every alpha (beta) gate not set explicitly. */
const ALL_ALPHA = 'AllAlpha';
const ALL_BETA = 'AllBeta';

/** Every gate name the kubelet accepts. */
export const KNOWN_FEATURE_GATES: ReadonlySet<string> = new Set([ALL_ALPHA, ALL_BETA, ...FEATURE_GATE_SPECS.keys()]);

/** Why a gate map is refused (the first bad entry, with component-base's message), or undefined. */
export function featureGatesError(gates: Readonly<Record<string, unknown>>): string | undefined {
  for (const [name, value] of Object.entries(gates)) {
    if (!KNOWN_FEATURE_GATES.has(name)) return `unrecognized feature gate: ${name}`;
    const spec = FEATURE_GATE_SPECS.get(name);
    if (spec?.locked && typeof value === 'boolean' && value !== spec.enabledByDefault) {
      return `cannot set feature gate ${name} to ${value}, feature is locked to ${spec.enabledByDefault}`;
    }
  }
  return undefined;
}

/** The warnings component-base logs when a GA or deprecated gate is set, one per gate. */
export function featureGateWarnings(gates: Readonly<Record<string, boolean>>): string[] {
  return Object.entries(gates).flatMap(([name, value]) => {
    const stage = FEATURE_GATE_SPECS.get(name)?.stage;
    if (stage === 'GA') return [`Setting GA feature gate ${name}=${value}. It will be removed in a future release.`];
    if (stage === 'Deprecated') return [`Setting deprecated feature gate ${name}=${value}. It will be removed in a future release.`];
    return [];
  });
}

/**
 * Whether a gate is on: its explicit value, else AllAlpha/AllBeta for an alpha/beta
 * gate, else its 1.36 default (as component-base's Enabled). Unknown names are off.
 */
export function isFeatureEnabled(gates: Readonly<Record<string, boolean>>, name: string): boolean {
  const explicit = gates[name];
  if (explicit !== undefined) return explicit;
  const spec: FeatureGateSpec | undefined = FEATURE_GATE_SPECS.get(name);
  if (!spec) return false;
  if (spec.stage === 'Alpha' && gates[ALL_ALPHA] === true) return true;
  if (spec.stage === 'Beta' && gates[ALL_BETA] === true) return true;
  return spec.enabledByDefault;
}

/** Parses "A=true,B=false" as pflag's mapStringBool; throws a plain Error naming the bad item. */
export function parseFeatureGates(raw: string): Record<string, boolean> {
  const gates: Record<string, boolean> = {};
  for (const item of raw.split(',').map((part) => part.trim()).filter((part) => part !== '')) {
    const equals = item.indexOf('=');
    if (equals < 0) throw new Error(`missing bool value for ${item}`);
    const name = item.slice(0, equals).trim();
    const value = item.slice(equals + 1).trim().toLowerCase();
    if (!['true', 'false', '1', '0', 't', 'f'].includes(value)) throw new Error(`invalid value of ${name}: ${value}`);
    gates[name] = ['true', '1', 't'].includes(value);
  }
  const reason = featureGatesError(gates);
  if (reason) throw new Error(reason);
  return gates;
}
