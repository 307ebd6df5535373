// What each eviction signal reads now, from the same Summary that /stats/summary
// serves (upstream's makeSignalObservations): memory.available is what the node's
// working set leaves of its memory, the filesystem signals are the node and image
// filesystems' free bytes and inodes, pid.available is pid_max less the processes.
import type { Summary } from '../stats/summary-types.js';
import type { EvictionSignal } from './thresholds.js';

export interface SignalObservation {
  available: number;
  capacity: number;
}

export type Observations = Partial<Record<EvictionSignal, SignalObservation>>;

export function observeSignals(summary: Summary): Observations {
  const observations: Observations = {};
  const { memory, fs, runtime, rlimit } = summary.node;
  if (memory?.availableBytes !== undefined && memory.workingSetBytes !== undefined) {
    observations['memory.available'] = { available: memory.availableBytes, capacity: memory.availableBytes + memory.workingSetBytes };
  }
  if (fs?.availableBytes !== undefined && fs.capacityBytes !== undefined) {
    observations['nodefs.available'] = { available: fs.availableBytes, capacity: fs.capacityBytes };
  }
  if (fs?.inodesFree !== undefined && fs.inodes !== undefined) {
    observations['nodefs.inodesFree'] = { available: fs.inodesFree, capacity: fs.inodes };
  }
  const imageFs = runtime?.imageFs;
  if (imageFs?.availableBytes !== undefined && imageFs.capacityBytes !== undefined) {
    observations['imagefs.available'] = { available: imageFs.availableBytes, capacity: imageFs.capacityBytes };
  }
  if (imageFs?.inodesFree !== undefined && imageFs.inodes !== undefined) {
    observations['imagefs.inodesFree'] = { available: imageFs.inodesFree, capacity: imageFs.inodes };
  }
  if (rlimit?.maxpid !== undefined && rlimit.curproc !== undefined) {
    observations['pid.available'] = { available: rlimit.maxpid - rlimit.curproc, capacity: rlimit.maxpid };
  }
  return observations;
}
