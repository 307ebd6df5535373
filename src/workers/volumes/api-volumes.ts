// configMap, secret, downwardAPI and projected volumes: each sync computes the
// volume's files from the pod and the API objects (volume-payloads.ts) and projects
// them with the atomic writer, so an updated ConfigMap or Secret reaches the running
// pod through the "..data" swap, and an unchanged one writes nothing. As upstream,
// secret and projected volumes (which may hold secrets or tokens) live on a tmpfs so
// their content never reaches the node's disk; configMap and downwardAPI volumes are
// plain directories.
import { chmod, mkdir, realpath, stat } from 'node:fs/promises';
import { ErrorCodes, ShardletError } from '../../shared/errors.js';
import type { PodApiData, ShardSettings } from '../../shared/shard-protocol.js';
import type { Pod, Volume } from '../../shared/types.js';
import { InvalidPayloadPathError, writePayloadAtomically, type Payload } from './atomic-writer.js';
import { emptyDirMemorySizeBytes } from './empty-dir.js';
import { mountTmpfs, mountsAt } from './mountinfo.js';
import {
  CONFIG_MAP_DEFAULT_MODE,
  DOWNWARD_API_DEFAULT_MODE,
  SECRET_DEFAULT_MODE,
  VolumePayloadError,
  configMapVolumePayload,
  downwardApiPayload,
  projectedPayload,
  secretVolumePayload,
} from './volume-payloads.js';
import {
  CONFIG_MAP_PLUGIN_NAME,
  DOWNWARD_API_PLUGIN_NAME,
  PROJECTED_PLUGIN_NAME,
  SECRET_PLUGIN_NAME,
  pluginVolumePath,
} from './volume-paths.js';
import { podRef } from '../../shared/pod-kinds.js';

/** The volume directory: readable and traversable by any container user, written only by the kubelet. */
const API_VOLUME_DIR_MODE = 0o755;
const TMPFS = 'tmpfs';

/** Plugins whose volumes are memory-backed, as upstream's wrapped emptyDir{medium: Memory}. */
export const MEMORY_BACKED_PLUGIN_NAMES = [SECRET_PLUGIN_NAME, PROJECTED_PLUGIN_NAME];

/** Volume sources this module sets up, and whether they read API objects. */
const API_VOLUME_SOURCES: Record<string, { pluginName: string; needsApiData: boolean }> = {
  configMap: { pluginName: CONFIG_MAP_PLUGIN_NAME, needsApiData: true },
  secret: { pluginName: SECRET_PLUGIN_NAME, needsApiData: true },
  downwardAPI: { pluginName: DOWNWARD_API_PLUGIN_NAME, needsApiData: false },
  projected: { pluginName: PROJECTED_PLUGIN_NAME, needsApiData: true },
};

/** The source key (configMap, secret, downwardAPI, projected) when this module handles the volume. */
export function apiVolumeSource(volume: Volume): string | undefined {
  return Object.keys(API_VOLUME_SOURCES).find((key) => volume[key as keyof Volume] != null);
}

/** Whether the volume can be set up without the main thread's API objects. */
export function needsApiData(source: string): boolean {
  return API_VOLUME_SOURCES[source]?.needsApiData ?? false;
}

const EMPTY_API_DATA: PodApiData = { configMaps: {}, secrets: {}, serviceAccountTokens: {} };

/**
 * Writes the volume's current content; resolves with its host path. Throws
 * SHARDLET_VOLUME_SETUP with upstream's `MountVolume.SetUp failed for volume "x" : ...`.
 */
export async function setupApiVolume(
  pod: Pod,
  volume: Volume,
  settings: ShardSettings,
  apiData: PodApiData = EMPTY_API_DATA,
): Promise<string> {
  const source = apiVolumeSource(volume) ?? '';
  const { pluginName } = API_VOLUME_SOURCES[source];
  const directory = pluginVolumePath(settings.rootDir, pod.metadata?.uid ?? '', pluginName, volume.name);
  try {
    // As upstream, the wrapped directory (and tmpfs) exists even when the object does not.
    await prepareDirectory(directory, pod, MEMORY_BACKED_PLUGIN_NAMES.includes(pluginName));
    await writePayloadAtomically(directory, volumePayload(pod, volume, source, settings, apiData));
  } catch (err) {
    throw setUpFailed(pod, volume, source, directory, err);
  }
  return directory;
}

function volumePayload(pod: Pod, volume: Volume, source: string, settings: ShardSettings, apiData: PodApiData): Payload {
  switch (source) {
    case 'configMap': {
      const configMap = volume.configMap ?? {};
      return configMapVolumePayload(configMap, apiData, configMap.defaultMode ?? CONFIG_MAP_DEFAULT_MODE);
    }
    case 'secret': {
      const secret = volume.secret ?? {};
      return secretVolumePayload(secret, apiData, secret.defaultMode ?? SECRET_DEFAULT_MODE);
    }
    case 'downwardAPI': {
      const downward = volume.downwardAPI ?? {};
      return downwardApiPayload(pod, settings, downward.items ?? [], downward.defaultMode ?? DOWNWARD_API_DEFAULT_MODE);
    }
    default:
      return projectedPayload(pod, settings, volume.projected ?? {}, apiData);
  }
}

async function prepareDirectory(directory: string, pod: Pod, memoryBacked: boolean): Promise<void> {
  await mkdir(directory, { recursive: true, mode: API_VOLUME_DIR_MODE });
  if (memoryBacked) {
    const mountPoint = await realpath(directory);
    const mounted = await mountsAt(mountPoint);
    if (mounted.at(-1)?.fsType !== TMPFS) {
      const sizeBytes = emptyDirMemorySizeBytes(pod, undefined);
      await mountTmpfs(mountPoint, [`size=${sizeBytes}`, `mode=${API_VOLUME_DIR_MODE.toString(8)}`]);
    }
  }
  if (((await stat(directory)).mode & 0o777) !== API_VOLUME_DIR_MODE) await chmod(directory, API_VOLUME_DIR_MODE);
}

/** As the operation generator's simple error: `MountVolume.SetUp failed for volume "x" : <cause>`. */
function setUpFailed(pod: Pod, volume: Volume, source: string, directory: string, err: unknown): ShardletError {
  const ref = podRef(pod);
  const cause = (err as Error).message;
  return new ShardletError(ErrorCodes.VOLUME_SETUP, `MountVolume.SetUp failed for volume "${volume.name}" : ${cause}`, {
    // Upstream's event reason; the pod's containers stay waiting with ContainerCreating.
    reason: 'FailedMount',
    pod: ref,
    volume: volume.name,
    source,
    path: directory,
    cause,
    // A missing object or key (rather than a disk failure): fixed by an API change, not by the node.
    payload: err instanceof VolumePayloadError || err instanceof InvalidPayloadPathError,
  });
}
