// The scenarios' names alone: the command line checks --scenarios against them and
// the catalog (scenarios.ts) builds each, so neither has to import the other's module.

export const SIM_SCENARIO_NAMES = ['density', 'pulls', 'sweep', 'kubelet-bound', 'scale', 'steady', 'churn', 'probes'] as const;
export const CONTAINERD_SCENARIO = 'containerd';
export const SCENARIO_NAMES = [...SIM_SCENARIO_NAMES, CONTAINERD_SCENARIO] as const;
export type ScenarioName = (typeof SCENARIO_NAMES)[number];
