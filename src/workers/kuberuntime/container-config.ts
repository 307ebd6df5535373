// The CRI ContainerConfig for one container instance, as upstream's
// kubeGenericRuntimeManager.generateContainerConfig: env (with $(VAR) expansion of
// command and args), mounts, log path, labels and annotations, Linux resources and
// security context. The few files it makes (the termination-log file, etc-hosts,
// the log directory) are made without blocking the shard, and the pod's directories
// and unchanged files only once (pod-paths-made.ts).
import { ErrorCodes, ShardletError } from '../../shared/errors.js';
import type { PodApiData, ShardSettings } from '../../shared/shard-protocol.js';
import type { Container, Pod } from '../../shared/types.js';
import type { ContainerConfig } from '../../generated/cri/runtime/v1/ContainerConfig.js';
import type { PodSandboxConfig } from '../../generated/cri/runtime/v1/PodSandboxConfig.js';
import { effectivePodIPs, makeEnvironmentVariables, type EnvVar } from './env.js';
import { expand, mappingFor } from './expansion.js';
import { newContainerAnnotations, newContainerLabels, type ContainerType } from './labels.js';
import { linuxContainerConfig, type ResourceOptions } from './linux-container-config.js';
import { containerLogPath, containerLogsDirectory, podLogsDirectory } from './log-paths.js';
import { makeMounts } from './mounts.js';
import { podHostnameAndDomain } from './pod-hostname.js';
import { podPathsMade } from '../volumes/pod-paths-made.js';
import type { ImageUser } from '../images/image-user.js';

const LOG_DIRECTORY_MODE = 0o755;

export interface ContainerConfigArgs {
  pod: Pod;
  container: Container;
  type: ContainerType;
  restartCount: number;
  /** The image as the runtime resolved it (image ID or digest); the spec's image when empty. */
  imageRef: string;
  /** Who that image runs as, from ImageStatus (upstream's getImageUser): runAsNonRoot is checked against it. */
  imageUser: ImageUser;
  sandboxConfig: PodSandboxConfig;
  /** The sandbox's IPs; empty for host-network pods. */
  podIPs: string[];
  settings: ShardSettings;
  /** Volume name → host path, from setupPodVolumes. */
  volumePaths: Record<string, string>;
  /** Cluster mode: the ConfigMaps and Secrets env and envFrom refer to. */
  apiData?: PodApiData;
  /** Receives pod warning events raised while building the config (InvalidEnvironmentVariableNames). */
  recordWarning?: (reason: string, message: string) => void;
  /** Resource computation overrides (tests). */
  resourceOptions?: ResourceOptions;
}

/** Builds the config; rejects with SHARDLET_CREATE_CONTAINER_CONFIG when the spec cannot be satisfied. */
export async function buildContainerConfig(args: ContainerConfigArgs): Promise<ContainerConfig> {
  try {
    return await generateContainerConfig(args);
  } catch (err) {
    if (err instanceof ShardletError) throw err;
    const pod = `${args.pod.metadata?.namespace ?? ''}/${args.pod.metadata?.name ?? ''}`;
    throw new ShardletError(
      ErrorCodes.CREATE_CONTAINER_CONFIG,
      `generating the config of container ${args.container.name} of pod ${pod}: ${(err as Error).message}`,
      { pod, container: args.container.name },
    );
  }
}

async function generateContainerConfig(args: ContainerConfigArgs): Promise<ContainerConfig> {
  const { pod, container, settings, restartCount } = args;
  const podIPs = effectivePodIPs(pod, args.podIPs, settings);
  const envs = makeEnvironmentVariables({
    pod,
    container,
    podIPs,
    settings,
    apiData: args.apiData,
    recordWarning: args.recordWarning,
  });
  const { command, commandArgs } = expandCommandAndArgs(container, envs);
  const names = podHostnameAndDomain(pod, settings.clusterDomain);
  const mounts = await makeMounts({ pod, container, volumePaths: args.volumePaths, envs, podIPs, names, settings });
  await ensureContainerLogsDirectory(args);
  return {
    metadata: { name: container.name, attempt: restartCount },
    image: { image: args.imageRef || (container.image ?? ''), user_specified_image: container.image ?? '' },
    command,
    args: commandArgs,
    working_dir: container.workingDir ?? '',
    envs: envs.map((envVar) => ({ key: envVar.name, value: envVar.value })),
    mounts,
    labels: newContainerLabels(pod, container, args.type),
    annotations: newContainerAnnotations(pod, container, restartCount),
    log_path: containerLogPath(container.name, restartCount),
    stdin: container.stdin === true,
    stdin_once: container.stdinOnce === true,
    tty: container.tty === true,
    linux: linuxContainerConfig(pod, container, settings, args.imageUser, args.resourceOptions),
  };
}

/** As ExpandContainerCommandAndArgs: $(VAR) in command and args resolve against the container's env. */
export function expandCommandAndArgs(container: Container, envs: EnvVar[]): { command: string[]; commandArgs: string[] } {
  const mapping = mappingFor(new Map(envs.map((envVar) => [envVar.name, envVar.value])));
  return {
    command: (container.command ?? []).map((part) => expand(part, mapping)),
    commandArgs: (container.args ?? []).map((part) => expand(part, mapping)),
  };
}

/** Upstream creates <podLogsDir>/<ns>_<name>_<uid>/<container> before CreateContainer. */
async function ensureContainerLogsDirectory(args: ContainerConfigArgs): Promise<void> {
  const metadata = args.pod.metadata;
  const podLogs =
    args.sandboxConfig.log_directory ||
    podLogsDirectory(args.settings.podLogsDir, metadata?.namespace ?? '', metadata?.name ?? '', metadata?.uid ?? '');
  await podPathsMade.directory(metadata?.uid ?? '', containerLogsDirectory(podLogs, args.container.name), LOG_DIRECTORY_MODE);
}
