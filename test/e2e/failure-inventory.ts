// What the failure suite reads: the runtime's own view of the test's pods (over the
// CRI, grouped by pod UID) and shardlet's (its read-only /pods and /stats/cri).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CriClient } from '../../src/shared/cri/client.js';
import type { Pod } from '../../src/shared/types.js';
import type { KubeletProcess } from '../helpers/kubelet-process.js';
import { manifest } from './scenarios.js';

export interface PodObjects {
  sandboxes: Array<{ id: string; state: string }>;
  containers: Array<{ id: string; name: string; state: string; sandboxId: string }>;
}

/** Every sandbox and container of pods whose name ends with `-<node>`, by pod UID. */
export async function runtimeInventory(cri: CriClient, node: string): Promise<Map<string, PodObjects>> {
  const [sandboxes, containers] = await Promise.all([cri.listPodSandbox({}), cri.listContainers({})]);
  const byUid = new Map<string, PodObjects>();
  const entry = (labels: Record<string, string>) => {
    if (!(labels['io.kubernetes.pod.name'] ?? '').endsWith(`-${node}`)) return undefined;
    const uid = labels['io.kubernetes.pod.uid'];
    let objects = byUid.get(uid);
    if (!objects) byUid.set(uid, (objects = { sandboxes: [], containers: [] }));
    return objects;
  };
  for (const sandbox of sandboxes.items) entry(sandbox.labels)?.sandboxes.push({ id: sandbox.id, state: sandbox.state });
  for (const container of containers.containers) {
    const name = container.labels['io.kubernetes.container.name'] ?? '';
    entry(container.labels)?.containers.push({ id: container.id, name, state: container.state, sandboxId: container.pod_sandbox_id });
  }
  return byUid;
}

/** The IDs of running containers, by pod UID. */
export function runningContainerIds(inventory: Map<string, PodObjects>): Map<string, string[]> {
  const idsByUid = new Map<string, string[]>();
  for (const [uid, objects] of inventory) {
    idsByUid.set(uid, objects.containers.filter((c) => c.state === 'CONTAINER_RUNNING').map((c) => c.id).sort());
  }
  return idsByUid;
}

/** Problems an operator would call lost or repeated work: two sandboxes, two running instances, a CREATED leftover. */
export function duplicatesAndLeftovers(inventory: Map<string, PodObjects>): string[] {
  const problems: string[] = [];
  for (const [uid, objects] of inventory) {
    if (objects.sandboxes.length > 1) problems.push(`${uid}: ${objects.sandboxes.length} sandboxes`);
    const running = objects.containers.filter((c) => c.state === 'CONTAINER_RUNNING').map((c) => c.name);
    if (new Set(running).size !== running.length) problems.push(`${uid}: a container running twice (${running.join(', ')})`);
    const created = objects.containers.filter((c) => c.state === 'CONTAINER_CREATED');
    if (created.length > 0) problems.push(`${uid}: ${created.length} container(s) left in CREATED`);
  }
  return problems;
}

export function sleeperManifest(name: string, image: string, seconds = 3600): string {
  // A short grace period: the suite stops many pods, and `sleep` as PID 1 ignores SIGTERM.
  return manifest(name, { terminationGracePeriodSeconds: 1, containers: [{ name: 'main', image, command: ['sleep', String(seconds)] }] });
}

export function writeSleepers(dir: string, names: string[], image: string): void {
  for (const name of names) writeFileSync(join(dir, `${name}.yaml`), sleeperManifest(name, image));
}

/** shardlet's pods by name (without the node suffix). */
export async function podsByName(kubelet: KubeletProcess, node: string): Promise<Map<string, Pod>> {
  const pods = await kubelet.pods();
  return new Map(pods.map((pod) => [pod.metadata!.name!.replace(new RegExp(`-${node}$`), ''), pod]));
}

export function isRunning(pod: Pod | undefined): boolean {
  return pod?.status?.phase === 'Running' && (pod.status.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}

/** CRI calls per method since shardlet started. */
export async function criCalls(kubelet: KubeletProcess): Promise<Record<string, number>> {
  const reply = await fetch(`http://127.0.0.1:${kubelet.port}/stats/cri`);
  return ((await reply.json()) as { calls: Record<string, number> }).calls;
}

export function names(prefix: string, count: number): string[] {
  return Array.from({ length: count }, (_, index) => `${prefix}${index}`);
}
