// What the hot CRI replies decode to: the fields some caller under src/ or bench/
// reads, each with the name, type and default proto-loader's decoded `__Output`
// types give it (so a caller reads `status.created_at` as before), and nothing
// else. The rest of each message (annotations of a sandbox, a container's mounts
// and resources, an image's tags, every verbose `info` map) is skipped on the wire
// without being built. A caller that needs a field left out here adds it to the
// type and to its decoder (reply-decoders.ts); the compiler points at every reader.
import type { Container__Output } from '../../../generated/cri/runtime/v1/Container.js';
import type { ContainerMetadata__Output } from '../../../generated/cri/runtime/v1/ContainerMetadata.js';
import type { ContainerStatus__Output } from '../../../generated/cri/runtime/v1/ContainerStatus.js';
import type { Image__Output } from '../../../generated/cri/runtime/v1/Image.js';
import type { ImageSpec__Output } from '../../../generated/cri/runtime/v1/ImageSpec.js';
import type { NamespaceOption__Output } from '../../../generated/cri/runtime/v1/NamespaceOption.js';
import type { PodSandbox__Output } from '../../../generated/cri/runtime/v1/PodSandbox.js';
import type { PodSandboxMetadata__Output } from '../../../generated/cri/runtime/v1/PodSandboxMetadata.js';
import type { PodSandboxNetworkStatus__Output } from '../../../generated/cri/runtime/v1/PodSandboxNetworkStatus.js';
import type { PodSandboxStatus__Output } from '../../../generated/cri/runtime/v1/PodSandboxStatus.js';

/** An image reference as containers and statuses carry it: only the name is read. */
export type ImageSpecLean = Pick<ImageSpec__Output, 'image'>;

/**
 * ImageStatus's image: whether it is on the node, its ID and size (the Pulled event),
 * and the user it runs as (uid when numeric, else username), which runAsNonRoot checks.
 */
export type ImageLean = Pick<Image__Output, 'id' | 'size' | 'uid' | 'username'>;

export interface ImageStatusReply {
  /** null when the image is not on the node. */
  image: ImageLean | null;
}

/** The network namespace mode tells a host-network sandbox. */
export type NamespaceOptionLean = Pick<NamespaceOption__Output, 'network'>;

export interface LinuxPodSandboxStatusLean {
  namespaces: { options: NamespaceOptionLean | null } | null;
}

/** A sandbox's status: identity, state, age, IPs and network mode (labels, annotations and runtime handler skipped). */
export interface PodSandboxStatusLean extends Pick<PodSandboxStatus__Output, 'id' | 'state' | 'created_at'> {
  metadata: PodSandboxMetadata__Output | null;
  network: PodSandboxNetworkStatus__Output | null;
  linux: LinuxPodSandboxStatusLean | null;
}

export interface PodSandboxStatusReply {
  status: PodSandboxStatusLean | null;
}

/** A ListPodSandbox entry (annotations and runtime handler skipped). */
export interface PodSandboxLean extends Pick<PodSandbox__Output, 'id' | 'state' | 'created_at' | 'labels'> {
  metadata: PodSandboxMetadata__Output | null;
}

export interface ListPodSandboxReply {
  items: PodSandboxLean[];
}

/** A ListContainers entry: labels and annotations carry the kubelet's own bookkeeping, so both are kept. */
export interface ContainerLean
  extends Pick<Container__Output, 'id' | 'pod_sandbox_id' | 'image_ref' | 'state' | 'created_at' | 'labels' | 'annotations'> {
  metadata: ContainerMetadata__Output | null;
  image: ImageSpecLean | null;
}

export interface ListContainersReply {
  containers: ContainerLean[];
}

/** ContainerUser's linux part: the identity the container's first process started with. */
export interface ContainerUserLean {
  linux: { uid: number; gid: number; supplemental_groups: number[] } | null;
}

/** A container's status (mounts, resources, image ID and image source skipped). */
export interface ContainerStatusLean
  extends Pick<
    ContainerStatus__Output,
    | 'id'
    | 'state'
    | 'created_at'
    | 'started_at'
    | 'finished_at'
    | 'exit_code'
    | 'image_ref'
    | 'reason'
    | 'message'
    | 'labels'
    | 'annotations'
    | 'log_path'
  > {
  metadata: ContainerMetadata__Output | null;
  image: ImageSpecLean | null;
  user: ContainerUserLean | null;
}

export interface ContainerStatusReply {
  status: ContainerStatusLean | null;
}
