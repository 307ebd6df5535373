// A pod's volumes on this node: the per-pod directories upstream's makePodDataDirs
// creates, then each volume's host path (emptyDir, hostPath). Volume types that need
// the API server or a storage plugin are refused with SHARDLET_VOLUME_SETUP. The
// teardown unmounts emptyDir tmpfs and removes <rootDir>/pods/<uid>; hostPath
// volumes live outside it and are never touched.
import { mkdir, realpath, rm } from 'node:fs/promises';
import { ErrorCodes, ShardletError } from '../../shared/errors.js';
import type { ShardSettings } from '../../shared/shard-protocol.js';
import type { Pod, Volume } from '../../shared/types.js';
import { setupEmptyDir, teardownEmptyDirs } from './empty-dir.js';
import { setupHostPath } from './host-path.js';
import { mountsUnder } from './mountinfo.js';
import { podDir, podVolumesDir } from './volume-paths.js';

const POD_DIR_MODE = 0o750;

/** Volume sources whose content comes from API objects. */
const API_BACKED_SOURCES = new Set([
  'configMap',
  'secret',
  'projected',
  'downwardAPI',
  'persistentVolumeClaim',
  'ephemeral',
]);

/** Sets up every volume of the pod; resolves with volume name → host path. */
export async function setupPodVolumes(pod: Pod, settings: ShardSettings): Promise<Record<string, string>> {
  const uid = pod.metadata?.uid ?? '';
  const volumes = pod.spec?.volumes ?? [];
  if (volumes.length === 0) return {};
  await mkdir(podVolumesDir(settings.rootDir, uid), { recursive: true, mode: POD_DIR_MODE });
  const paths = await Promise.all(volumes.map((volume) => setupVolume(pod, volume, settings)));
  return Object.fromEntries(volumes.map((volume, index) => [volume.name, paths[index]]));
}

async function setupVolume(pod: Pod, volume: Volume, settings: ShardSettings): Promise<string> {
  if (volume.emptyDir) return setupEmptyDir(settings.rootDir, pod, volume);
  if (volume.hostPath) return setupHostPath(volume);
  const source = volumeSourceName(volume);
  const podRef = `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`;
  const reason = API_BACKED_SOURCES.has(source)
    ? `${source} volumes need the API server (not yet supported)`
    : `${source || 'this'} volume type is not supported by shardlet`;
  throw new ShardletError(ErrorCodes.VOLUME_SETUP, `volume "${volume.name}" of pod ${podRef}: ${reason}`, {
    pod: podRef,
    volume: volume.name,
    source,
  });
}

/** The source field a volume sets (configMap, secret, ...): the one key besides name. */
function volumeSourceName(volume: Volume): string {
  const entry = Object.entries(volume).find(([key, value]) => key !== 'name' && value !== undefined && value !== null);
  return entry?.[0] ?? '';
}

/** Unmounts the pod's tmpfs volumes and removes its directory. */
export async function teardownPodVolumes(podUid: string, settings: ShardSettings): Promise<void> {
  if (podUid === '') return;
  let directory: string;
  try {
    directory = await realpath(podDir(settings.rootDir, podUid));
  } catch {
    return;
  }
  await teardownEmptyDirs(settings.rootDir, podUid);
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
