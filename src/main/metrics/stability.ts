// Upstream's component-base metrics prefix every HELP text with the metric's
// stability level ("[ALPHA] …", "[STABLE] …"), and dashboards and `promtool` output
// show it; shardlet's series do the same so an operator reads the same text.

export type StabilityLevel = 'ALPHA' | 'BETA' | 'STABLE';

export function helpText(level: StabilityLevel, help: string, deprecatedVersion?: string): string {
  return deprecatedVersion ? `[${level}] (Deprecated since ${deprecatedVersion}) ${help}` : `[${level}] ${help}`;
}
