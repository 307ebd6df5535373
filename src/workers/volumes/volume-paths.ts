// The kubelet's per-pod directory layout under --root-dir, as upstream's
// kubelet_getters.go and the volume plugins' GetPath():
//   <rootDir>/pods/<uid>/volumes/kubernetes.io~empty-dir/<volume>
//   <rootDir>/pods/<uid>/volumes/kubernetes.io~configmap/<volume>   (~secret, ~downward-api, ~projected)
//   <rootDir>/pods/<uid>/containers/<container>/<random>   (termination-log files)
//   <rootDir>/pods/<uid>/etc-hosts
// The UID, volume and container names are the pod's: each must be one plain segment
// (src/shared/safe-path.ts), or the builder throws SHARDLET_PATH_UNSAFE.
import { join } from 'node:path';
import { joinPathSegment } from '../../shared/safe-path.js';

export const EMPTY_DIR_PLUGIN_NAME = 'kubernetes.io/empty-dir';
export const CONFIG_MAP_PLUGIN_NAME = 'kubernetes.io/configmap';
export const SECRET_PLUGIN_NAME = 'kubernetes.io/secret';
export const DOWNWARD_API_PLUGIN_NAME = 'kubernetes.io/downward-api';
export const PROJECTED_PLUGIN_NAME = 'kubernetes.io/projected';

/** Plugin names become directory names with "/" escaped as "~", as utilstrings.EscapeQualifiedName. */
export function escapePluginName(pluginName: string): string {
  return pluginName.replace(/\//g, '~');
}

export function podsDir(rootDir: string): string {
  return join(rootDir, 'pods');
}

export function podDir(rootDir: string, podUid: string): string {
  return joinPathSegment(podsDir(rootDir), 'metadata.uid', podUid);
}

export function podVolumesDir(rootDir: string, podUid: string): string {
  return join(podDir(rootDir, podUid), 'volumes');
}

export function podPluginVolumesDir(rootDir: string, podUid: string, pluginName: string): string {
  return join(podVolumesDir(rootDir, podUid), escapePluginName(pluginName));
}

export function emptyDirPath(rootDir: string, podUid: string, volumeName: string): string {
  return pluginVolumePath(rootDir, podUid, EMPTY_DIR_PLUGIN_NAME, volumeName);
}

/** A volume's directory under its plugin's, as each plugin's GetPath(). */
export function pluginVolumePath(rootDir: string, podUid: string, pluginName: string, volumeName: string): string {
  return joinPathSegment(podPluginVolumesDir(rootDir, podUid, pluginName), 'volume name', volumeName);
}

export function podContainerDir(rootDir: string, podUid: string, containerName: string): string {
  return joinPathSegment(join(podDir(rootDir, podUid), 'containers'), 'container name', containerName);
}

export function podEtcHostsPath(rootDir: string, podUid: string): string {
  return join(podDir(rootDir, podUid), 'etc-hosts');
}

/** Where Localhost seccomp profiles are looked up (upstream's seccompProfileRoot). */
export function seccompProfileRoot(rootDir: string): string {
  return join(rootDir, 'seccomp');
}
