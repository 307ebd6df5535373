// Start times for /stats/summary from the status the kubelet computed for a pod:
// the pod's startTime, and each container's current instance's startedAt (upstream
// reads the same instants from the runtime's sandbox and container records; the
// status already holds them, so the summary lists nothing more).
import { toDate } from '../../shared/status/pod-conditions.js';
import type { PodStatus } from '../../shared/types.js';
import type { PodTimes } from './summary-mapping.js';

export function podTimesFromStatus(status: PodStatus | undefined): PodTimes | undefined {
  if (!status) return undefined;
  const containerStartTimeMsByName = new Map<string, number>();
  for (const container of [...(status.initContainerStatuses ?? []), ...(status.containerStatuses ?? [])]) {
    const startedAt = toDate(container.state?.running?.startedAt ?? container.state?.terminated?.startedAt);
    if (startedAt) containerStartTimeMsByName.set(container.name, startedAt.getTime());
  }
  return { startTimeMs: toDate(status.startTime)?.getTime(), containerStartTimeMsByName };
}
