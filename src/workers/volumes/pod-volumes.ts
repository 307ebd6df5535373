// A pod's volumes on this node: the per-pod directories upstream's makePodDataDirs
// creates, then each volume's host path: emptyDir, hostPath, and the API-backed
// configMap, secret, downwardAPI and projected volumes (api-volumes.ts), whose
// content is rewritten from the main thread's PodApiData at every setup. Other
// volume types (and API-backed ones without API data, i.e. standalone mode) are
// refused with SHARDLET_VOLUME_SETUP. The teardown unmounts the containers' subPath
// bind mounts (as upstream's CleanSubPaths before a volume's TearDown) and the pod's
// tmpfs (emptyDir Memory, secret, projected), and removes <rootDir>/pods/<uid>;
// hostPath volumes live outside it and are never touched.
import { realpath, rm } from 'node:fs/promises';
import { ErrorCodes, ShardletError } from '../../shared/errors.js';
import type { PodApiData, ShardSettings } from '../../shared/shard-protocol.js';
import type { Pod, Volume } from '../../shared/types.js';
import { apiVolumeSource, MEMORY_BACKED_PLUGIN_NAMES, needsApiData, setupApiVolume } from './api-volumes.js';
import { setupEmptyDir, teardownEmptyDirs, unmountPluginTmpfs } from './empty-dir.js';
import { setupHostPath } from './host-path.js';
import { mountsUnder } from './mountinfo.js';
import { cleanPodSubPaths } from './subpath-cleanup.js';
import { podDir, podVolumesDir } from './volume-paths.js';
import { podPathsMade } from './pod-paths-made.js';
import { podRef } from '../../shared/pod-kinds.js';

const POD_DIR_MODE = 0o750;

/** Volume sources whose content comes from API objects. */
const API_BACKED_SOURCES = new Set(['configMap', 'secret', 'projected', 'persistentVolumeClaim', 'ephemeral']);
/** Of those, the ones shardlet sets up in cluster mode. */
const CLUSTER_MODE_SOURCES = new Set(['configMap', 'secret', 'projected']);

/**
 * Sets up every volume of the pod; resolves with volume name → host path. apiData
 * (cluster mode) holds the ConfigMaps, Secrets and tokens the volumes refer to.
 */
export async function setupPodVolumes(pod: Pod, settings: ShardSettings, apiData?: PodApiData): Promise<Record<string, string>> {
  const uid = pod.metadata?.uid ?? '';
  const volumes = pod.spec?.volumes ?? [];
  if (volumes.length === 0) return {};
  await podPathsMade.directory(uid, podVolumesDir(settings.rootDir, uid), POD_DIR_MODE);
  const paths = await Promise.all(volumes.map((volume) => setupVolume(pod, volume, settings, apiData)));
  return Object.fromEntries(volumes.map((volume, index) => [volume.name, paths[index]]));
}

async function setupVolume(pod: Pod, volume: Volume, settings: ShardSettings, apiData: PodApiData | undefined): Promise<string> {
  if (volume.emptyDir) return setupEmptyDir(settings.rootDir, pod, volume);
  if (volume.hostPath) return setupHostPath(volume);
  const apiSource = apiVolumeSource(volume);
  if (apiSource !== undefined && (apiData !== undefined || !needsApiData(apiSource))) {
    return setupApiVolume(pod, volume, settings, apiData);
  }
  const source = volumeSourceName(volume);
  const ref = podRef(pod);
  let reason = `${source || 'this'} volume type is not supported by shardlet`;
  if (CLUSTER_MODE_SOURCES.has(source)) reason = `${source} volumes need the API server (run with --kubeconfig)`;
  else if (API_BACKED_SOURCES.has(source)) reason = `${source} volumes need the API server (not yet supported)`;
  throw new ShardletError(ErrorCodes.VOLUME_SETUP, `volume "${volume.name}" of pod ${ref}: ${reason}`, {
    pod: ref,
    volume: volume.name,
    source,
  });
}

/** The source field a volume sets (configMap, secret, ...): the one key besides name. */
function volumeSourceName(volume: Volume): string {
  const entry = Object.entries(volume).find(([key, value]) => key !== 'name' && value !== undefined && value !== null);
  return entry?.[0] ?? '';
}

/** Unmounts the pod's subPath bind mounts and tmpfs volumes (emptyDir Memory, secret, projected), and removes its directory. */
export async function teardownPodVolumes(podUid: string, settings: ShardSettings): Promise<void> {
  if (podUid === '') return;
  let directory: string;
  try {
    directory = await realpath(podDir(settings.rootDir, podUid));
  } catch {
    return;
  }
  await cleanPodSubPaths(settings.rootDir, podUid);
  await teardownEmptyDirs(settings.rootDir, podUid);
  for (const pluginName of MEMORY_BACKED_PLUGIN_NAMES) await unmountPluginTmpfs(settings.rootDir, podUid, pluginName);
  // A recursive remove would descend into anything still mounted here: refuse instead.
  const leftover = await mountsUnder(directory);
  if (leftover.length > 0) {
    throw new ShardletError(
      ErrorCodes.VOLUME_SETUP,
      `not removing ${directory} of pod ${podUid}: ${leftover.map((entry) => entry.mountPoint).join(', ')} still mounted`,
      { podUid, mounts: leftover.map((entry) => entry.mountPoint) },
    );
  }
  await rm(directory, { recursive: true, force: true });
}
