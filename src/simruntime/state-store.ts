// In-memory state of the simulated runtime: sandboxes, containers, images, the
// names reserved for them and the pod IP pool. Plain records, no behaviour:
// transitions live in the service handlers, the process timing in process-model.
import { randomBytes } from 'node:crypto';
import type * as cri from '../shared/cri/types.js';
import { parseImageReference } from './image-catalog.js';
import { IpPool } from './ip-pool.js';
import type { ProcessBehaviour } from './process-model.js';
import { sandboxNotFound, containerNotFound, unknown } from './sim-error.js';

export type SandboxState = 'SANDBOX_READY' | 'SANDBOX_NOTREADY';
export type ContainerState = 'CONTAINER_CREATED' | 'CONTAINER_RUNNING' | 'CONTAINER_EXITED' | 'CONTAINER_UNKNOWN';

export interface SandboxRecord {
  id: string;
  config: cri.PodSandboxConfig__Output;
  metadata: cri.PodSandboxMetadata__Output;
  state: SandboxState;
  createdAtNs: number;
  /** '' for host-network sandboxes, and once the sandbox is stopped. */
  ip: string;
  hostNetwork: boolean;
  runtimeHandler: string;
  reservedName: string;
}

export interface ContainerRecord {
  id: string;
  sandboxId: string;
  config: cri.ContainerConfig__Output;
  metadata: cri.ContainerMetadata__Output;
  image: ImageRecord;
  state: ContainerState;
  createdAtNs: number;
  startedAtNs: number;
  finishedAtNs: number;
  exitCode: number;
  reason: string;
  message: string;
  resources: cri.LinuxContainerResources__Output | null;
  /** What the simulated process does, read off command and args at creation. */
  behaviour: ProcessBehaviour;
  reservedName: string;
}

export interface ImageRecord {
  id: string;
  /** Every tag pulled for this image, canonical, e.g. docker.io/library/busybox:latest; none for digest-only pulls. */
  repoTags: string[];
  /** Every repository's manifest digest reference of it, e.g. docker.io/library/busybox@sha256:…. */
  repoDigests: string[];
  sizeBytes: number;
  pulledAtNs: number;
  /** The User of the image's config ('' for none: root). */
  user: string;
}

/** Nanoseconds since the epoch, the unit of every CRI timestamp. */
export function nowNs(): number {
  return Date.now() * 1_000_000;
}

/** 64 hex characters, the shape of containerd's IDs. */
export function newId(): string {
  return randomBytes(32).toString('hex');
}

export class StateStore {
  readonly sandboxes = new Map<string, SandboxRecord>();
  readonly containers = new Map<string, ContainerRecord>();
  readonly imagesById = new Map<string, ImageRecord>();
  readonly ips = new IpPool();
  /** containerd refuses a second sandbox or container with the same name; names map to the owner's ID. */
  private readonly reservedNames = new Map<string, string>();

  /** Finds a sandbox by full ID or unique prefix (containerd accepts truncated IDs). */
  findSandbox(id: string): SandboxRecord | undefined {
    return findByIdOrPrefix(this.sandboxes, id);
  }

  getSandbox(id: string): SandboxRecord {
    const sandbox = this.findSandbox(id);
    if (!sandbox) throw sandboxNotFound(id);
    return sandbox;
  }

  findContainer(id: string): ContainerRecord | undefined {
    return findByIdOrPrefix(this.containers, id);
  }

  getContainer(id: string): ContainerRecord {
    const container = this.findContainer(id);
    if (!container) throw containerNotFound(id);
    return container;
  }

  containersOf(sandboxId: string): ContainerRecord[] {
    return [...this.containers.values()].filter((c) => c.sandboxId === sandboxId);
  }

  /** Reserves `name` for `ownerId`, failing as containerd does when it is taken. */
  reserveName(kind: 'sandbox' | 'container', name: string, ownerId: string): void {
    const holder = this.reservedNames.get(name);
    if (holder !== undefined) {
      throw unknown(`failed to reserve ${kind} name "${name}": name "${name}" is reserved for "${holder}"`);
    }
    this.reservedNames.set(name, ownerId);
  }

  releaseName(name: string): void {
    this.reservedNames.delete(name);
  }

  /** The image an ImageSpec names: by ID (full, bare hex or prefix), canonical name or repo digest. */
  findImage(name: string): ImageRecord | undefined {
    if (!name) return undefined;
    const id = /^[0-9a-f]{64}$/.test(name) ? `sha256:${name}` : name;
    if (id.startsWith('sha256:')) return findByIdOrPrefix(this.imagesById, id);
    const ref = parseImageReference(name);
    const repoDigest = ref.digest ? `${ref.host}/${ref.path}@${ref.digest}` : undefined;
    for (const image of this.imagesById.values()) {
      if (repoDigest ? image.repoDigests.includes(repoDigest) : image.repoTags.includes(ref.canonical)) return image;
    }
    return undefined;
  }
}

function findByIdOrPrefix<T>(records: Map<string, T>, id: string): T | undefined {
  if (!id) return undefined;
  const exact = records.get(id);
  if (exact) return exact;
  let match: T | undefined;
  for (const [key, record] of records) {
    if (!key.startsWith(id)) continue;
    if (match) return undefined; // ambiguous prefix
    match = record;
  }
  return match;
}

/** containerd's sandbox name: <name>_<namespace>_<uid>_<attempt>. */
export function sandboxName(metadata: cri.PodSandboxMetadata__Output): string {
  return [metadata.name, metadata.namespace, metadata.uid, metadata.attempt].join('_');
}

/** containerd's container name: <container>_<pod>_<namespace>_<uid>_<attempt>. */
export function containerName(metadata: cri.ContainerMetadata__Output, sandbox: SandboxRecord): string {
  return [metadata.name, sandbox.metadata.name, sandbox.metadata.namespace, sandbox.metadata.uid, metadata.attempt].join('_');
}
