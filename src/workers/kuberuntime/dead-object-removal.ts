// Removing one dead container or sandbox of a live pod, best effort, as upstream's
// container GC does it: a removal that fails is logged and tried again at a later
// sync, and never fails the sync it runs in (upstream's SyncPod does no removals at
// all). NotFound means already gone.
import { ErrorCodes } from '../../shared/errors.js';
import { isLeakedTaskRefusal, isNotFound } from '../../shared/cri/client.js';
import type { RuntimeDeps } from './runtime-deps.js';

/** Containers whose leaked task was reported: one warning per container, not one per sync. */
const leakedTasksReported = new Set<string>();
/** The record is only there to keep the log quiet: a bound keeps it from growing on a runtime that leaks without end. */
const MAX_LEAKED_TASKS_REMEMBERED = 10_000;

/** True once the object is gone (removed now or before). */
export async function removeDeadObject(deps: RuntimeDeps, kind: 'container' | 'sandbox', id: string, podUid: string): Promise<boolean> {
  try {
    if (kind === 'container') await deps.cri.removeContainer({ container_id: id });
    else await deps.cri.removePodSandbox({ pod_sandbox_id: id });
    return true;
  } catch (err) {
    if (isNotFound(err)) return true;
    reportRemovalRefused(deps, kind, id, podUid, err);
    return false;
  }
}

/** containerd 1.6's leaked task gets one coded warning that says what an operator can do; anything else a debug line per try. */
export function reportRemovalRefused(deps: RuntimeDeps, kind: 'container' | 'sandbox', id: string, podUid: string, err: unknown): void {
  const message = (err as Error)?.message ?? String(err);
  if (!isLeakedTaskRefusal(err)) {
    deps.logger.debug({ kind, id, podUid, err: message }, 'Failed to remove a dead object; trying again later');
    return;
  }
  if (leakedTasksReported.has(id)) return;
  if (leakedTasksReported.size >= MAX_LEAKED_TASKS_REMEMBERED) leakedTasksReported.clear();
  leakedTasksReported.add(id);
  deps.logger.warn(
    { code: ErrorCodes.RUNTIME_TASK_LEAKED, containerId: id, podUid, err: message },
    'The runtime refuses to remove a container whose task outlived a cancelled StartContainer (containerd 1.6); ' +
      'it is tried again, and goes once containerd restarts or `ctr -n k8s.io tasks delete --force <id>` ends the task',
  );
}
