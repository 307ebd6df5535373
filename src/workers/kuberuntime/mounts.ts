// A container's mounts, as upstream's makeMounts (kubelet_pods.go: volume mounts with
// subPath / subPathExpr, each subPath bind-mounted safely by volumes/subpath-bind.ts,
// then the managed /etc/hosts) followed by kubeGenericRuntimeManager.makeMounts (the
// termination-message file).
import { randomBytes } from 'node:crypto';
import { chmod, open } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import { ErrorCodes, ShardletError, type ErrorCode } from '../../shared/errors.js';
import { DEFAULT_TERMINATION_MESSAGE_PATH } from '../../shared/manifest/pod-defaults.js';
import type { ShardSettings } from '../../shared/shard-protocol.js';
import type { Container, Pod } from '../../shared/types.js';
import type { Mount } from '../../generated/cri/runtime/v1/Mount.js';
import type { MountPropagation } from '../../generated/cri/runtime/v1/MountPropagation.js';
import type { V1VolumeMount } from '@kubernetes/client-node';
import { podContainerDir, podEtcHostsPath } from '../volumes/volume-paths.js';
import { podPathsMade } from '../volumes/pod-paths-made.js';
import { prepareSafeSubpath } from '../volumes/subpath-bind.js';
import type { EnvVar } from './env.js';
import { ETC_HOSTS_PATH, ensureHostsFile } from './etc-hosts.js';
import { expand } from './expansion.js';
import type { PodHostname } from './pod-hostname.js';

const TERMINATION_LOG_MODE = 0o666;
const POD_CONTAINER_DIR_MODE = 0o750;

export interface MountArgs {
  pod: Pod;
  container: Container;
  /** Volume name → host path, from setupPodVolumes. */
  volumePaths: Record<string, string>;
  /** The container's env, for subPathExpr. */
  envs: EnvVar[];
  /** Effective pod IPs (the node's for host-network pods); no /etc/hosts mount without one. */
  podIPs: string[];
  names: PodHostname;
  settings: ShardSettings;
}

export async function makeMounts(args: MountArgs): Promise<Mount[]> {
  const { container } = args;
  const volumeMounts = container.volumeMounts ?? [];
  const mounts: Mount[] = [];
  // One at a time, in order: subPaths of one volume may nest.
  for (const [index, volumeMount] of volumeMounts.entries()) mounts.push(await makeVolumeMount(args, volumeMount, index));
  const mountsEtcHosts = volumeMounts.some((volumeMount) => volumeMount.mountPath === ETC_HOSTS_PATH);
  if (args.podIPs.length > 0 && !mountsEtcHosts) {
    const podUid = args.pod.metadata?.uid ?? '';
    const path = await ensureHostsFile({
      podUid,
      path: podEtcHostsPath(args.settings.rootDir, podUid),
      podIPs: args.podIPs,
      hostname: args.names.hostname,
      domain: args.names.domain,
      hostAliases: args.pod.spec?.hostAliases ?? [],
      hostNetwork: args.pod.spec?.hostNetwork === true,
    });
    mounts.push({ host_path: path, container_path: ETC_HOSTS_PATH, readonly: false });
  }
  const terminationLog = await terminationLogMount(args);
  if (terminationLog) mounts.push(terminationLog);
  return mounts;
}

async function makeVolumeMount(args: MountArgs, volumeMount: V1VolumeMount, volumeMountIndex: number): Promise<Mount> {
  const { container } = args;
  const volumePath = args.volumePaths[volumeMount.name];
  if (volumePath === undefined) {
    throw mountError(args, `cannot find volume "${volumeMount.name}" to mount into container "${container.name}"`);
  }
  let subPath = volumeMount.subPath ?? '';
  if (volumeMount.subPathExpr) subPath = expandSubPathExpr(args, volumeMount.subPathExpr);
  const hostPath = subPath === '' ? volumePath : await prepareSubPath(args, volumeMount, volumeMountIndex, volumePath, subPath);
  return {
    host_path: hostPath,
    container_path: volumeMount.mountPath,
    readonly: volumeMount.readOnly === true || isApiContentVolume(args.pod, volumeMount.name),
    propagation: translateMountPropagation(args, volumeMount),
  };
}

/** ConfigMap, Secret, downwardAPI and projected volumes are always mounted read-only, as upstream. */
function isApiContentVolume(pod: Pod, volumeName: string): boolean {
  const volume = pod.spec?.volumes?.find((candidate) => candidate.name === volumeName);
  return Boolean(volume?.configMap || volume?.secret || volume?.downwardAPI || volume?.projected);
}

/** As ExpandContainerVolumeMounts: every referenced variable must be set and non-empty. */
function expandSubPathExpr(args: MountArgs, expression: string): string {
  const valuesByName = new Map(args.envs.map((envVar) => [envVar.name, envVar.value]));
  const missing: string[] = [];
  const expanded = expand(expression, (name) => {
    const value = valuesByName.get(name) ?? '';
    if (value === '') missing.push(name);
    return value;
  });
  if (missing.length > 0) throw mountError(args, `missing value for ${missing.join(', ')}`);
  return expanded;
}

/**
 * As makeMounts' subPath branch: the subPath is pod-supplied, so it is refused when
 * absolute or with '..', and otherwise opened inside the volume and bind-mounted
 * onto a target under the pod's directory (prepareSafeSubpath), which is what the
 * runtime gets. As upstream, the message the pod shows names no host path; the
 * cause goes to the kubelet's log.
 */
async function prepareSubPath(args: MountArgs, volumeMount: V1VolumeMount, volumeMountIndex: number, volumePath: string, subPath: string): Promise<string> {
  if (isAbsolute(subPath)) throw mountError(args, `error SubPath \`${subPath}\` must not be an absolute path`);
  if (subPath.split('/').includes('..')) {
    throw mountError(args, `unable to provision SubPath \`${subPath}\`: must not contain '..'`);
  }
  try {
    return await prepareSafeSubpath({
      rootDir: args.settings.rootDir,
      podUid: args.pod.metadata?.uid ?? '',
      volumeName: volumeMount.name,
      volumePath,
      subPath,
      containerName: args.container.name,
      volumeMountIndex,
    });
  } catch (err) {
    const message = `failed to prepare subPath for volumeMount "${volumeMount.name}" of container "${args.container.name}"`;
    throw mountError(args, message, { cause: (err as Error).message }, ErrorCodes.SUBPATH_FAILED);
  }
}

/** As translateMountPropagation; Bidirectional needs a privileged container, as validation demands. */
function translateMountPropagation(args: MountArgs, volumeMount: V1VolumeMount): MountPropagation {
  switch (volumeMount.mountPropagation) {
    case undefined:
    case 'None':
      return 'PROPAGATION_PRIVATE';
    case 'HostToContainer':
      return 'PROPAGATION_HOST_TO_CONTAINER';
    case 'Bidirectional':
      if (args.container.securityContext?.privileged !== true) {
        throw mountError(args, `volumeMount "${volumeMount.name}": Bidirectional mount propagation is available only to privileged containers`);
      }
      return 'PROPAGATION_BIDIRECTIONAL';
    default:
      throw mountError(args, `invalid MountPropagation mode: "${volumeMount.mountPropagation}"`);
  }
}

/**
 * The file the container writes its termination message to: a fresh empty file
 * <rootDir>/pods/<uid>/containers/<name>/<8 hex digits> per container instance, as
 * upstream creates it (a failure there is logged upstream; here the mount is skipped).
 * The directory is made once per pod and container.
 */
async function terminationLogMount(args: MountArgs): Promise<Mount | undefined> {
  const containerPath = args.container.terminationMessagePath ?? DEFAULT_TERMINATION_MESSAGE_PATH;
  if (containerPath === '') return undefined;
  const podUid = args.pod.metadata?.uid ?? '';
  const directory = podContainerDir(args.settings.rootDir, podUid, args.container.name);
  const hostPath = join(directory, randomBytes(4).toString('hex'));
  try {
    await podPathsMade.inDirectory(podUid, directory, POD_CONTAINER_DIR_MODE, async () => (await open(hostPath, 'w')).close());
    // Set the mode after creation so the umask does not narrow it.
    await chmod(hostPath, TERMINATION_LOG_MODE);
  } catch {
    return undefined;
  }
  return { host_path: hostPath, container_path: containerPath };
}

function mountError(
  args: MountArgs,
  message: string,
  details: Record<string, unknown> = {},
  code: ErrorCode = ErrorCodes.CREATE_CONTAINER_CONFIG,
): ShardletError {
  const pod = `${args.pod.metadata?.namespace ?? ''}/${args.pod.metadata?.name ?? ''}`;
  return new ShardletError(code, `pod ${pod}: ${message}`, {
    pod,
    container: args.container.name,
    ...details,
  });
}
