// Where subPath bind mounts live, as upstream's getPodVolumeSubpathsDir
// (kubelet_getters.go) and getSubpathBindTarget (pkg/volume/util/subpath):
//   <rootDir>/pods/<uid>/volume-subpaths/<volume>/<container>/<volumeMount index>
// The runtime is handed the target, never a path inside the volume. Volume and
// container names are pod-supplied: each is joined as one plain segment
// (safe-path.ts), whatever validated them before.
import { join } from 'node:path';
import { joinPathSegment } from '../../shared/safe-path.js';
import { podDir } from './volume-paths.js';

/** Upstream's containerSubPathDirectoryName. */
export const CONTAINER_SUBPATH_DIRECTORY_NAME = 'volume-subpaths';

export function podVolumeSubpathsDir(rootDir: string, podUid: string): string {
  return join(podDir(rootDir, podUid), CONTAINER_SUBPATH_DIRECTORY_NAME);
}

export function volumeSubpathsDir(rootDir: string, podUid: string, volumeName: string): string {
  return joinPathSegment(podVolumeSubpathsDir(rootDir, podUid), 'volume name', volumeName);
}

export function containerSubpathsDir(rootDir: string, podUid: string, volumeName: string, containerName: string): string {
  return joinPathSegment(volumeSubpathsDir(rootDir, podUid, volumeName), 'container name', containerName);
}

export function subpathBindTarget(rootDir: string, podUid: string, volumeName: string, containerName: string, volumeMountIndex: number): string {
  return join(containerSubpathsDir(rootDir, podUid, volumeName, containerName), String(volumeMountIndex));
}
