// Removing one dead container or sandbox for the node-wide container garbage
// collector, on the main thread, as upstream's containerGC does it: a container in
// the unknown state may still run, so it is stopped first (removeOldestN's
// killContainer); its log file and the rotated ones go (removeContainerLog, through
// the log manager's Clean), then RemoveContainer. NotFound anywhere means someone
// (the pod's own sync, usually) got there first.
import { unlink } from 'node:fs/promises';
import type { Logger } from 'pino';
import type { ContainerLean } from '../../shared/cri/types.js';
import { isNotFound, type CriClient } from '../../shared/cri/client.js';
import { CONTAINER_NAME_LABEL, POD_DELETION_GRACE_PERIOD_ANNOTATION, POD_TERMINATION_GRACE_PERIOD_ANNOTATION, POD_UID_LABEL } from '../../shared/labels.js';
import { rotatedFiles } from '../logs/log-rotation.js';

/** Upstream's minimumGracePeriodInSeconds: the least a stop is given. */
const MINIMUM_GRACE_PERIOD_SECONDS = 2;

/** Stops (if unknown) and removes the container with its log files; false when the runtime refused. */
export async function removeDeadContainer(cri: CriClient, container: ContainerLean, logger: Logger): Promise<boolean> {
  const labels = container.labels ?? {};
  const fields = { containerId: container.id, pod: labels[POD_UID_LABEL], container: labels[CONTAINER_NAME_LABEL] };
  try {
    if (container.state === 'CONTAINER_UNKNOWN') {
      logger.info(fields, 'Container is in unknown state, try killing it before removal');
      const grace = gracePeriodSeconds(container);
      await cri.stopContainer({ container_id: container.id, timeout: grace });
    }
    await removeContainerLogs(cri, container.id);
    logger.debug(fields, 'Removing container');
    await cri.removeContainer({ container_id: container.id });
    return true;
  } catch (err) {
    if (isNotFound(err)) return true;
    logger.warn({ ...fields, err: (err as Error).message }, 'Failed to remove container');
    return false;
  }
}

/**
 * Removes a sandbox the collector found dead and empty, after asking the runtime
 * again: RemovePodSandbox removes (and stops) every container still in it, and a
 * running one in a sandbox that is no longer ready is not in the lists the
 * collector reads.
 */
export async function removeEmptySandbox(cri: CriClient, sandboxId: string, logger: Logger): Promise<boolean> {
  try {
    const { containers } = await cri.listContainers({ filter: { pod_sandbox_id: sandboxId } });
    if (containers.length > 0) {
      logger.debug({ sandboxId, containers: containers.length }, 'Sandbox still holds containers; not removed');
      return false;
    }
    logger.debug({ sandboxId }, 'Removing sandbox');
    await cri.removePodSandbox({ pod_sandbox_id: sandboxId });
    return true;
  } catch (err) {
    if (isNotFound(err)) return true;
    logger.warn({ sandboxId, err: (err as Error).message }, 'Failed to remove sandbox');
    return false;
  }
}

/** The kubelet put the pod's grace periods on the container, so a stop without the pod's spec gets them (upstream's restoreSpecsFromContainerLabels). */
function gracePeriodSeconds(container: ContainerLean): number {
  const annotations = container.annotations ?? {};
  const recorded = Number(annotations[POD_DELETION_GRACE_PERIOD_ANNOTATION] ?? annotations[POD_TERMINATION_GRACE_PERIOD_ANNOTATION]);
  return Number.isFinite(recorded) ? Math.max(recorded, MINIMUM_GRACE_PERIOD_SECONDS) : MINIMUM_GRACE_PERIOD_SECONDS;
}

/** The container's log file and its rotated files (<log>.*), as upstream's log manager Clean. */
async function removeContainerLogs(cri: CriClient, containerId: string): Promise<void> {
  const { status } = await cri.containerStatus({ container_id: containerId });
  const logPath = status?.log_path ?? '';
  if (!logPath) return;
  for (const file of [logPath, ...(await rotatedFiles(logPath))]) {
    await unlink(file).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err;
    });
  }
}
