// Lifecycle hooks (postStart, preStop), as upstream's lifecycle handlerRunner:
// exec through CRI ExecSync (no timeout of its own: preStop is bounded by the grace
// period, postStart by the runtime request timeout), httpGet to the pod IP where
// only a failed request fails (the status code is not looked at), sleep for the
// given seconds. A failure resolves with upstream's message; it never throws.
import { setTimeout as sleep } from 'node:timers/promises';
import { formatPodRef } from '../../shared/events/event-types.js';
import type { CriClient } from '../../shared/cri/client.js';
import type { Container, LifecycleHandler, Pod } from '../../shared/types.js';
import { execInContainer } from '../prober/exec-probe.js';
import { httpProbe } from '../prober/http-probe.js';
import { probeUrl, resolveHost, resolvePort } from '../prober/probe-target.js';

/** An httpGet hook has no timeout of its own in the API; upstream's client gives it this much. */
export const HOOK_HTTP_TIMEOUT_MS = 10_000;

export interface HookTarget {
  pod: Pod;
  container: Container;
  containerId: string;
  podIP: string;
}

/** Runs the handler; resolves with undefined on success or upstream's failure message. */
export async function runLifecycleHandler(
  cri: CriClient,
  handler: LifecycleHandler,
  target: HookTarget,
  signal?: AbortSignal,
): Promise<string | undefined> {
  const { pod, container } = target;
  const podName = formatPodRef(pod.metadata?.name ?? '', pod.metadata?.namespace ?? '', pod.metadata?.uid ?? '');
  if (handler.exec) {
    const command = handler.exec.command ?? [];
    try {
      const result = await execInContainer(cri, target.containerId, command, 0);
      if (result.exitCode === 0) return undefined;
      return `Exec lifecycle hook ([${command.join(' ')}]) for Container "${container.name}" in Pod "${podName}" failed - error: command '${command.join(' ')}' exited with ${result.exitCode}: ${result.output}, message: ${JSON.stringify(result.output)}`;
    } catch (err) {
      return `Exec lifecycle hook ([${command.join(' ')}]) for Container "${container.name}" in Pod "${podName}" failed - error: ${(err as Error).message}, message: ""`;
    }
  }
  if (handler.httpGet) {
    const action = handler.httpGet;
    try {
      const url = probeUrl(action.scheme, resolveHost(action.host, target.podIP), resolvePort(action.port, container), action.path);
      const outcome = await httpProbe({ url, headers: action.httpHeaders ?? [], timeoutMs: HOOK_HTTP_TIMEOUT_MS });
      // Only a request that could not be made fails a hook; any answer will do.
      if (outcome.verdict === 'failure' && !outcome.output.startsWith('HTTP probe failed with statuscode')) {
        return `HTTP lifecycle hook (${action.path ?? ''}) for Container "${container.name}" in Pod "${podName}" failed - error: ${outcome.output}`;
      }
      return undefined;
    } catch (err) {
      return `HTTP lifecycle hook (${action.path ?? ''}) for Container "${container.name}" in Pod "${podName}" failed - error: ${(err as Error).message}`;
    }
  }
  if (handler.sleep) {
    await sleep(Math.max(handler.sleep.seconds, 0) * 1000, undefined, { signal }).catch(() => undefined);
    return undefined;
  }
  return `Cannot run handler: a lifecycle handler needs exec, httpGet or sleep`;
}
