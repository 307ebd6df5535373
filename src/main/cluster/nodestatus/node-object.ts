// The v1 Node this kubelet registers, as upstream's initialNode builds it:
// default labels then --node-labels on top, taints from registerWithTaints,
// podCIDR and providerID, and a full status (setNodeStatus: addresses,
// capacity/allocatable, nodeInfo, daemon endpoints, conditions).
import type { V1Node, V1NodeAddress, V1NodeStatus } from '@kubernetes/client-node';
import { isIP } from 'node:net';
import type { KubeletOptions } from '../../options/kubelet-options.js';
import { detectHostIP } from '../../node-ip.js';
import { nodeResources } from '../../nodestatus/capacity.js';
import { nodeConditions, type NodeHealth } from './conditions.js';
import type { MachineInfo } from '../../nodestatus/machine-info.js';

export const LABEL_HOSTNAME = 'kubernetes.io/hostname';
export const LABEL_OS = 'kubernetes.io/os';
export const LABEL_ARCH = 'kubernetes.io/arch';
export const LABEL_OS_BETA = 'beta.kubernetes.io/os';
export const LABEL_ARCH_BETA = 'beta.kubernetes.io/arch';
/** Tells the attach/detach controller it owns attaching volumes for this node (enableControllerAttachDetach, default true). */
export const ANNOTATION_CONTROLLER_MANAGED_ATTACH = 'volumes.kubernetes.io/controller-managed-attach-detach';
/** Upstream's default --port, which the API server reaches for logs, exec and port-forward. */
export const DEFAULT_KUBELET_PORT = 10250;
/** VersionInfo's runtime version when the CRI Version call failed or gave no parsable version. */
export const UNKNOWN_RUNTIME_VERSION = 'Unknown';

/** What the CRI Version call reported. */
export interface RuntimeVersionInfo {
  runtimeName: string;
  runtimeVersion: string;
}

export interface InitialNodeExtras {
  /** Port published in status.daemonEndpoints.kubeletEndpoint; DEFAULT_KUBELET_PORT when not given. */
  kubeletPort?: number;
  /** Health for the initial conditions; the node is registered without conditions when absent. */
  health?: NodeHealth;
  now?: Date;
  /** Host IP detection when --node-ip is not given (tests pass their own). */
  detectHostIP?: () => string;
}

const VERSION_PATTERN = /^\s*v?([0-9]+(?:\.[0-9]+)*)(.*)$/;
const SEMVER_EXTRA_PATTERN = /^(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?\s*$/;

/**
 * The runtime version as the kubelet prints it (newRuntimeVersion: semantic,
 * else generic, through apimachinery's util/version): "v1.6.20" → "1.6.20",
 * "1.7.0-rc.1+abc" kept, "1.2.3.4-x" → "1.2.3.4"; unparsable → undefined.
 */
export function normalizeRuntimeVersion(raw: string): string | undefined {
  const match = VERSION_PATTERN.exec(raw);
  if (!match) return undefined;
  const [, numbers, extra] = match;
  const components = numbers.split('.').map((part) => String(Number(part)));
  if (components.length === 3) {
    const extraMatch = SEMVER_EXTRA_PATTERN.exec(extra);
    if (extraMatch) {
      const [, preRelease, build] = extraMatch;
      return components.join('.') + (preRelease ? `-${preRelease}` : '') + (build ? `+${build}` : '');
    }
  }
  return components.length >= 2 ? components.join('.') : undefined;
}

/** nodeInfo.containerRuntimeVersion: "<runtimeName>://<version>", e.g. "containerd://1.6.20". */
export function containerRuntimeVersion(runtime: RuntimeVersionInfo): string {
  return `${runtime.runtimeName}://${normalizeRuntimeVersion(runtime.runtimeVersion) ?? UNKNOWN_RUNTIME_VERSION}`;
}

/** Upstream's default node labels plus --node-labels (which win, as upstream warns and overwrites). */
export function nodeLabels(options: Pick<KubeletOptions, 'nodeName' | 'nodeLabels'>, machine: MachineInfo): Record<string, string> {
  return {
    [LABEL_HOSTNAME]: options.nodeName,
    [LABEL_OS]: machine.operatingSystem,
    [LABEL_ARCH]: machine.architecture,
    [LABEL_OS_BETA]: machine.operatingSystem,
    [LABEL_ARCH_BETA]: machine.architecture,
    ...options.nodeLabels,
  };
}

/**
 * status.addresses without a cloud provider (NodeAddress setter): every
 * --node-ip as InternalIP (dual-stack gives two), else the hostname when it is
 * an IP, else the detected host IP; then the Hostname.
 */
export function nodeAddresses(
  options: Pick<KubeletOptions, 'nodeName' | 'nodeIP' | 'nodeIPs'>,
  detect: () => string = detectHostIP,
): V1NodeAddress[] {
  let internalIPs = options.nodeIPs.length > 0 ? options.nodeIPs : options.nodeIP ? [options.nodeIP] : [];
  if (internalIPs.length === 0) {
    internalIPs = [isIP(options.nodeName) !== 0 ? options.nodeName : detect()];
  }
  return [
    ...internalIPs.map((address) => ({ type: 'InternalIP', address })),
    { type: 'Hostname', address: options.nodeName },
  ];
}

/** The node status the setters produce (without images and volumes, which shardlet does not report). */
export function nodeStatus(
  options: KubeletOptions,
  machine: MachineInfo,
  runtime: RuntimeVersionInfo,
  kubeletVersion: string,
  extras: InitialNodeExtras = {},
): V1NodeStatus {
  const { capacity, allocatable } = nodeResources(machine, options);
  const status: V1NodeStatus = {
    capacity,
    allocatable,
    addresses: nodeAddresses(options, extras.detectHostIP),
    daemonEndpoints: { kubeletEndpoint: { Port: extras.kubeletPort ?? DEFAULT_KUBELET_PORT } },
    nodeInfo: {
      machineID: machine.machineID,
      systemUUID: machine.systemUUID,
      bootID: machine.bootID,
      kernelVersion: machine.kernelVersion,
      osImage: machine.osImage,
      containerRuntimeVersion: containerRuntimeVersion(runtime),
      kubeletVersion,
      // Deprecated and no longer filled by the kubelet (DisableNodeKubeProxyVersion).
      kubeProxyVersion: '',
      operatingSystem: machine.operatingSystem,
      architecture: machine.architecture,
    },
  };
  if (extras.health) status.conditions = nodeConditions(undefined, extras.health, extras.now ?? new Date());
  return status;
}

/** initialNode: the Node object to create at registration. */
export function initialNode(
  options: KubeletOptions,
  machine: MachineInfo,
  runtimeVersion: RuntimeVersionInfo,
  kubeletVersion: string,
  extras: InitialNodeExtras = {},
): V1Node {
  const spec: NonNullable<V1Node['spec']> = {};
  if (options.registerWithTaints.length > 0) {
    spec.taints = options.registerWithTaints.map((taint) => ({ ...taint }));
  }
  // Upstream leaves spec.podCIDR to the IPAM controller; shardlet sets --pod-cidr so a
  // cluster without one still shows it (the API lets it be set once).
  if (options.podCIDR) {
    spec.podCIDR = options.podCIDR;
    spec.podCIDRs = [options.podCIDR];
  }
  if (options.providerID) spec.providerID = options.providerID;
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: options.nodeName,
      labels: nodeLabels(options, machine),
      annotations: { [ANNOTATION_CONTROLLER_MANAGED_ATTACH]: 'true' },
    },
    spec,
    status: nodeStatus(options, machine, runtimeVersion, kubeletVersion, extras),
  };
}
