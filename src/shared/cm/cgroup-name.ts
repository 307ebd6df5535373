// Names of the kubelet's cgroups, as upstream's CgroupName: a list of components
// ("kubepods", "burstable", "pod<uid>") that each driver spells its own way. The
// cgroupfs driver joins them as a path (/kubepods/burstable/pod<uid>); the systemd
// driver makes nested slices whose names repeat their parents'
// (kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod<uid>.slice), with
// '-' inside a component escaped to '_' because systemd reads '-' as nesting.
// The pod UID is the pod's: it must be one plain path segment (src/shared/safe-path.ts),
// or the pod cgroup's path would climb out of the QoS tier.
import type { QOSClass } from '../qos.js';
import { checkPathSegment } from '../safe-path.js';

export type CgroupDriver = 'cgroupfs' | 'systemd';
export type CgroupName = readonly string[];

/** The node allocatable cgroup every pod lives under (upstream's defaultNodeAllocatableCgroupName). */
export const NODE_ALLOCATABLE_CGROUP = 'kubepods';
const POD_CGROUP_PREFIX = 'pod';
const SYSTEMD_SLICE_SUFFIX = '.slice';

/** cgroupRoot ("/" or "/custom") as components; "" and "/" are the root. */
export function cgroupRootName(cgroupRoot: string): CgroupName {
  return cgroupRoot.split('/').filter((part) => part !== '');
}

/** The QoS tier a pod of this class goes in: Guaranteed pods sit directly under kubepods. */
export function qosCgroupName(root: CgroupName, qos: QOSClass): CgroupName {
  const kubepods = [...root, NODE_ALLOCATABLE_CGROUP];
  if (qos === 'Burstable') return [...kubepods, 'burstable'];
  if (qos === 'BestEffort') return [...kubepods, 'besteffort'];
  return kubepods;
}

/** The pod's cgroup; throws SHARDLET_PATH_UNSAFE for a UID that is not one plain segment. */
export function podCgroupName(root: CgroupName, qos: QOSClass, podUid: string): CgroupName {
  return [...qosCgroupName(root, qos), `${POD_CGROUP_PREFIX}${checkPathSegment('metadata.uid', podUid)}`];
}

/** The path of the cgroup below a hierarchy's mount point, as the driver lays it out. */
export function cgroupPath(name: CgroupName, driver: CgroupDriver): string {
  if (driver === 'cgroupfs') return `/${name.join('/')}`;
  const slices: string[] = [];
  for (let i = 0; i < name.length; i++) slices.push(systemdSliceName(name.slice(0, i + 1)));
  return `/${slices.join('/')}`;
}

/** What the runtime gets as cgroup_parent: the path for cgroupfs, the leaf slice's name for systemd. */
export function runtimeCgroupParent(name: CgroupName, driver: CgroupDriver): string {
  return driver === 'cgroupfs' ? cgroupPath(name, driver) : systemdSliceName(name);
}

function systemdSliceName(name: CgroupName): string {
  if (name.length === 0) return '-.slice';
  return `${name.map((part) => part.replaceAll('-', '_')).join('-')}${SYSTEMD_SLICE_SUFFIX}`;
}
