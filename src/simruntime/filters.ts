// ListPodSandbox / ListContainers filters with the CRI's semantics: every field
// that is set must match (AND); the label selector is exact key=value matches
// only; IDs match in full or by prefix, as containerd resolves truncated IDs.
import type * as cri from '../shared/cri/types.js';
import type { ContainerRecord, SandboxRecord } from './state-store.js';

function idMatches(wanted: string, id: string): boolean {
  return !wanted || id.startsWith(wanted);
}

export function labelsMatch(selector: Record<string, string> | undefined, labels: Record<string, string>): boolean {
  if (!selector) return true;
  for (const [key, value] of Object.entries(selector)) {
    if (labels[key] !== value) return false;
  }
  return true;
}

export function sandboxMatches(filter: cri.PodSandboxFilter__Output | null, sandbox: SandboxRecord): boolean {
  if (!filter) return true;
  if (!idMatches(filter.id, sandbox.id)) return false;
  if (filter.state && filter.state.state !== sandbox.state) return false;
  return labelsMatch(filter.label_selector, sandbox.config.labels);
}

export function containerMatches(filter: cri.ContainerFilter__Output | null, container: ContainerRecord): boolean {
  if (!filter) return true;
  if (!idMatches(filter.id, container.id)) return false;
  if (!idMatches(filter.pod_sandbox_id, container.sandboxId)) return false;
  if (filter.state && filter.state.state !== container.state) return false;
  return labelsMatch(filter.label_selector, container.config.labels);
}
