// The CRI PodSandboxConfig for a pod, as upstream's generatePodSandboxConfig and
// generatePodSandboxLinuxConfig: metadata, hostname, log directory, DNS, port
// mappings, labels and annotations, namespaces and the sandbox security context.
// Like upstream's createPodSandbox it also makes the pod's log directory (once per
// pod and shard, without blocking it). The pod's own cgroup (cgroupsPerQOS) is its
// cgroup_parent; there are no sandbox resources.
import { isIPv6 } from 'node:net';
import { ErrorCodes, ShardletError } from '../../shared/errors.js';
import { isPathUnsafe } from '../../shared/safe-path.js';
import type { ShardSettings } from '../../shared/shard-protocol.js';
import type { Pod } from '../../shared/types.js';
import type { LinuxPodSandboxConfig } from '../../generated/cri/runtime/v1/LinuxPodSandboxConfig.js';
import type { PodSandboxConfig } from '../../generated/cri/runtime/v1/PodSandboxConfig.js';
import type { PortMapping } from '../../generated/cri/runtime/v1/PortMapping.js';
import type { Protocol } from '../../generated/cri/runtime/v1/Protocol.js';
import type { V1Container } from '@kubernetes/client-node';
import { getPodDNS } from '../network/dns.js';
import { newPodAnnotations, newPodLabels } from './labels.js';
import { podLogsDirectory } from './log-paths.js';
import { kernelHostname, podHostnameAndDomain } from './pod-hostname.js';
import { sandboxSecurityContext } from './security-context.js';
import { podCgroupParent } from '../cm/pod-cgroup.js';
import { podPathsMade } from '../volumes/pod-paths-made.js';

const LOG_DIRECTORY_MODE = 0o755;

/** Builds the config and makes the log directory; rejects with SHARDLET_RUN_SANDBOX (reason CreatePodSandboxConfigError) when it cannot. */
export async function buildSandboxConfig(pod: Pod, attempt: number, settings: ShardSettings): Promise<PodSandboxConfig> {
  try {
    const config = generatePodSandboxConfig(pod, attempt, settings);
    await podPathsMade.directory(pod.metadata?.uid ?? '', config.log_directory ?? '', LOG_DIRECTORY_MODE);
    return config;
  } catch (err) {
    const ref = `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`;
    // A refused pod-supplied path keeps its own code: one code to grep for every such refusal.
    throw new ShardletError(
      isPathUnsafe(err) ? ErrorCodes.PATH_UNSAFE : ErrorCodes.RUN_SANDBOX,
      `GeneratePodSandboxConfig for pod "${ref}" failed: ${(err as Error).message}`,
      { pod: ref, reason: 'CreatePodSandboxConfigError' },
    );
  }
}

function generatePodSandboxConfig(pod: Pod, attempt: number, settings: ShardSettings): PodSandboxConfig {
  const metadata = pod.metadata ?? {};
  const logDirectory = podLogsDirectory(settings.podLogsDir, metadata.namespace ?? '', metadata.name ?? '', metadata.uid ?? '');
  const config: PodSandboxConfig = {
    metadata: { name: metadata.name ?? '', uid: metadata.uid ?? '', namespace: metadata.namespace ?? '', attempt },
    // Upstream leaves a host-network sandbox's hostname empty: it shares the node's UTS
    // namespace, and runc refuses to set a hostname there ("unable to set hostname
    // without a private UTS namespace", seen on containerd 1.6).
    hostname: pod.spec?.hostNetwork ? '' : kernelHostname(pod, podHostnameAndDomain(pod, settings.clusterDomain)),
    log_directory: logDirectory,
    dns_config: getPodDNS(pod, settings),
    port_mappings: podPortMappings(pod),
    labels: newPodLabels(pod),
    annotations: newPodAnnotations(pod),
    linux: sandboxLinuxConfig(pod, podCgroupParent(pod, settings.podCgroups)),
  };
  return config;
}

function sandboxLinuxConfig(pod: Pod, cgroupParent: string): LinuxPodSandboxConfig {
  const sysctls: Record<string, string> = {};
  for (const sysctl of pod.spec?.securityContext?.sysctls ?? []) sysctls[sysctl.name] = sysctl.value;
  return { cgroup_parent: cgroupParent, security_context: sandboxSecurityContext(pod), sysctls };
}

/** Every declared container port of the app containers, as MakePortMappings lists them. */
export function podPortMappings(pod: Pod): PortMapping[] {
  return (pod.spec?.containers ?? []).flatMap(containerPortMappings);
}

/** As kubecontainer.MakePortMappings: a port name (or its family/protocol/IP/port key) counts once. */
function containerPortMappings(container: V1Container): PortMapping[] {
  const seen = new Set<string>();
  const mappings: PortMapping[] = [];
  for (const port of container.ports ?? []) {
    const protocol = (port.protocol ?? 'TCP') as Protocol;
    const hostIP = port.hostIP ?? '';
    const family = hostIP === '' ? 'any' : isIPv6(hostIP) ? 'v6' : 'v4';
    const key = port.name || `${family}-${String(protocol)}-${hostIP}:${port.containerPort}`;
    if (seen.has(key)) continue;
    seen.add(key);
    mappings.push({
      protocol,
      container_port: port.containerPort,
      host_port: port.hostPort ?? 0,
      host_ip: hostIP,
    });
  }
  return mappings;
}
