// emptyDir volumes, as upstream's pkg/volume/emptydir: a 0777 directory under the
// pod's volumes directory; with medium Memory a tmpfs mounted on it, sized as
// calculateEmptyDirMemorySize does (the smallest of node memory, the pod's memory
// limit and the volume's sizeLimit). Teardown unmounts the tmpfs; removing the
// directory is left to the pod-level teardown.
import { chmod, mkdir, realpath, stat } from 'node:fs/promises';
import { totalmem } from 'node:os';
import { ErrorCodes, ShardletError } from '../../shared/errors.js';
import { containerLimits, resourceAmount } from '../../shared/qos.js';
import { parseBytes, type QuantityInput } from '../../shared/quantity.js';
import type { Pod, Volume } from '../../shared/types.js';
import { mountTmpfs, mountsAt, mountsUnder, unmount } from './mountinfo.js';
import { emptyDirPath, podPluginVolumesDir, EMPTY_DIR_PLUGIN_NAME } from './volume-paths.js';
import { podPathsMade } from './pod-paths-made.js';

/** Upstream makes emptyDir directories world-writable so any container user can write. */
const EMPTY_DIR_MODE = 0o777;
const TMPFS = 'tmpfs';

/**
 * Creates the volume's directory (and tmpfs); resolves with its host path. A disk
 * directory this shard made for the pod already is left as it is; a tmpfs is checked
 * at every setup (something may have unmounted it).
 */
export async function setupEmptyDir(rootDir: string, pod: Pod, volume: Volume): Promise<string> {
  const podUid = pod.metadata?.uid ?? '';
  const directory = emptyDirPath(rootDir, podUid, volume.name);
  const medium = volume.emptyDir?.medium ?? '';
  if (medium !== '' && medium !== 'Memory') {
    throw volumeError(volume, directory, `emptyDir medium ${JSON.stringify(medium)} is not supported`);
  }
  if (medium === '' && podPathsMade.hasDirectory(podUid, directory)) return directory;
  try {
    await mkdir(directory, { recursive: true, mode: EMPTY_DIR_MODE });
    // mkdir's mode passes through the umask; set it exactly, as upstream's setupDir does.
    if (((await stat(directory)).mode & 0o777) !== EMPTY_DIR_MODE) await chmod(directory, EMPTY_DIR_MODE);
    if (medium === 'Memory') await setupTmpfs(directory, pod, volume);
    else podPathsMade.noteDirectory(podUid, directory);
  } catch (err) {
    if (err instanceof ShardletError) throw err;
    throw volumeError(volume, directory, (err as Error).message);
  }
  return directory;
}

/** Mounts the tmpfs unless one is already there, which makes setup idempotent. */
async function setupTmpfs(directory: string, pod: Pod, volume: Volume): Promise<void> {
  const mountPoint = await realpath(directory);
  const mounted = await mountsAt(mountPoint);
  if (mounted.at(-1)?.fsType === TMPFS) return;
  const sizeBytes = emptyDirMemorySizeBytes(pod, volume.emptyDir?.sizeLimit as QuantityInput | undefined);
  await mountTmpfs(mountPoint, [`size=${sizeBytes}`]);
}

/**
 * As calculateEmptyDirMemorySize (SizeMemoryBackedVolumes): node memory (upstream:
 * allocatable), lowered to the pod's memory limit and then to the volume's sizeLimit.
 */
export function emptyDirMemorySizeBytes(pod: Pod, sizeLimit: QuantityInput | undefined, nodeMemoryBytes = totalmem()): number {
  let size = nodeMemoryBytes;
  const podLimit = podMemoryLimitBytes(pod);
  if (podLimit > 0 && podLimit <= size) size = podLimit;
  if (sizeLimit !== undefined) {
    const volumeLimit = parseBytes(sizeLimit);
    if (volumeLimit > 0 && volumeLimit <= size) size = volumeLimit;
  }
  return size;
}

/** As ResourceConfigForPod's memory: only when every app container has a limit; init containers run alone. */
function podMemoryLimitBytes(pod: Pod): number {
  const containers = pod.spec?.containers ?? [];
  const limits = containers.map((container) => resourceAmount(containerLimits(container), 'memory'));
  if (containers.length === 0 || limits.some((limit) => limit === 0)) return 0;
  const appTotal = limits.reduce((sum, limit) => sum + limit, 0);
  const initMax = Math.max(0, ...(pod.spec?.initContainers ?? []).map((c) => resourceAmount(containerLimits(c), 'memory')));
  return Math.max(appTotal, initMax);
}

/** Unmounts every tmpfs under the pod's emptyDir directory. */
export async function teardownEmptyDirs(rootDir: string, podUid: string): Promise<void> {
  await unmountPluginTmpfs(rootDir, podUid, EMPTY_DIR_PLUGIN_NAME);
}

/** Unmounts every tmpfs under one plugin's directory of the pod (emptyDir, and the memory-backed secret and projected volumes). */
export async function unmountPluginTmpfs(rootDir: string, podUid: string, pluginName: string): Promise<void> {
  let pluginDir: string;
  try {
    pluginDir = await realpath(podPluginVolumesDir(rootDir, podUid, pluginName));
  } catch {
    return;
  }
  for (const entry of await mountsUnder(pluginDir)) {
    if (entry.fsType !== TMPFS) continue;
    try {
      await unmount(entry.mountPoint);
    } catch (err) {
      throw new ShardletError(
        ErrorCodes.VOLUME_SETUP,
        `UnmountVolume.TearDown failed for tmpfs ${entry.mountPoint} of pod ${podUid}: ${(err as Error).message}`,
        { podUid, path: entry.mountPoint },
      );
    }
  }
}

function volumeError(volume: Volume, path: string, message: string): ShardletError {
  return new ShardletError(
    ErrorCodes.VOLUME_SETUP,
    `MountVolume.SetUp failed for volume "${volume.name}" (emptyDir ${path}): ${message}`,
    { volume: volume.name, path },
  );
}
