// State records rendered as the CRI messages containerd sends for them. Labels
// and annotations go back exactly as they came in: the spec forbids a runtime to
// alter them, and the kubelet rebuilds its whole view of a pod from them.
import { posix } from 'node:path';
import type * as cri from '../shared/cri/types.js';
import { imageStatusUser } from './image-catalog.js';
import type { ContainerRecord, ImageRecord, SandboxRecord } from './state-store.js';

export function toPodSandbox(sandbox: SandboxRecord): cri.PodSandbox {
  return {
    id: sandbox.id,
    metadata: sandbox.metadata,
    state: sandbox.state,
    created_at: sandbox.createdAtNs,
    labels: sandbox.config.labels,
    annotations: sandbox.config.annotations,
    runtime_handler: sandbox.runtimeHandler,
  };
}

export function toPodSandboxStatus(sandbox: SandboxRecord): cri.PodSandboxStatus {
  return {
    ...toPodSandbox(sandbox),
    network: { ip: sandbox.ip, additional_ips: [] },
    linux: { namespaces: { options: sandbox.config.linux?.security_context?.namespace_options ?? null } },
  };
}

/** The list form: containerd reports the image as configured and the image ID as ref. */
export function toContainer(container: ContainerRecord): cri.Container {
  return {
    id: container.id,
    pod_sandbox_id: container.sandboxId,
    metadata: container.metadata,
    image: { image: container.config.image?.image ?? '', annotations: container.config.image?.annotations ?? {} },
    image_ref: container.image.id,
    state: container.state,
    created_at: container.createdAtNs,
    labels: container.config.labels,
    annotations: container.config.annotations,
    image_id: container.image.id,
  };
}

/** The status form: the image by its name, the ref by repo digest, as containerd does. */
export function toContainerStatus(container: ContainerRecord, sandbox: SandboxRecord | undefined): cri.ContainerStatus {
  const logDirectory = sandbox?.config.log_directory ?? '';
  const logPath = container.config.log_path && logDirectory ? posix.join(logDirectory, container.config.log_path) : '';
  return {
    id: container.id,
    metadata: container.metadata,
    state: container.state,
    created_at: container.createdAtNs,
    started_at: container.startedAtNs,
    finished_at: container.finishedAtNs,
    exit_code: container.exitCode,
    image: {
      image: container.image.repoTags[0] || container.config.image?.image || '',
      user_specified_image: container.config.image?.user_specified_image ?? '',
    },
    image_ref: container.image.repoDigests[0] || container.image.id,
    reason: container.reason,
    message: container.message,
    labels: container.config.labels,
    annotations: container.config.annotations,
    mounts: container.config.mounts,
    log_path: logPath,
    resources: container.resources ? { linux: container.resources } : null,
    image_id: container.image.id,
  };
}

export function toImage(image: ImageRecord): cri.Image {
  return {
    id: image.id,
    repo_tags: image.repoTags,
    repo_digests: image.repoDigests,
    size: image.sizeBytes,
    ...imageStatusUser(image.user),
    spec: { image: image.id, annotations: {} },
    pinned: false,
  };
}
