// subPath bind mounts of pods the kubelet does not have, taken down in housekeeping.
// A pod's own teardown unmounts them (volumes/pod-volumes.ts); these are the ones no
// teardown comes for: a pod removed while shardlet was down (or killed half-way
// through its teardown) that the runtime does not hold either. Upstream finds them
// through the volume manager's reconstruction from disk after a restart, whose
// unmount runs CleanSubPaths; here /proc/self/mountinfo names them directly.
//
// A bind target left mounted keeps the volume's directory reachable from the
// kubelet's tree, and the pod directory could not be removed without descending
// into it: so the mounts go, and the directories only as they empty.
import type { Logger } from 'pino';
import { ErrorCodes } from '../../shared/errors.js';
import { cleanPodSubPaths, podsWithSubpathMounts } from '../../workers/volumes/subpath-cleanup.js';

/** Every this many housekeeping passes (a minute at 2 s), after the first: the leftovers only come from before a restart. */
const EVERY_PASSES = 30;

export class OrphanedPodSubpaths {
  private running = false;
  private passes = 0;

  constructor(
    private readonly rootDir: string,
    private readonly logger: Logger,
  ) {}

  /** One pass (a no-op while one runs, and on most passes); resolves with the UIDs whose mounts went, never rejects. */
  async cleanup(isKnown: (uid: string) => boolean): Promise<string[]> {
    if (this.running || this.passes++ % EVERY_PASSES !== 0) return [];
    this.running = true;
    const cleaned: string[] = [];
    try {
      for (const uid of await podsWithSubpathMounts(this.rootDir)) {
        if (isKnown(uid)) continue;
        try {
          await cleanPodSubPaths(this.rootDir, uid);
          cleaned.push(uid);
        } catch (err) {
          this.logger.warn({ code: ErrorCodes.SUBPATH_FAILED, podUID: uid, err: (err as Error).message }, 'Failed to clean up the subPath mounts of a pod the kubelet does not have; trying again later');
        }
      }
    } catch (err) {
      this.logger.warn({ code: ErrorCodes.SUBPATH_FAILED, err: (err as Error).message }, 'Failed to list the subPath mounts left on the node');
    } finally {
      this.running = false;
    }
    if (cleaned.length > 0) this.logger.info({ pods: cleaned }, 'Unmounted the subPath mounts of pods the kubelet does not have');
    return cleaned;
  }
}
