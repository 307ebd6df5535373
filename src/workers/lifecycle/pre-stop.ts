// The preStop hook of a container being killed, as upstream's executePreStopHook:
// it runs within the container's grace period, and the time it took is taken off
// what StopContainer then gets.
import { setTimeout as sleep } from 'node:timers/promises';
import type { RuntimeContainer } from '../../shared/runtime-pod.js';
import type { Container, LifecycleHandler, Pod } from '../../shared/types.js';
import { containerFieldPath, recordEvent, type RuntimeDeps } from '../kuberuntime/runtime-deps.js';
import { podIPOf } from '../prober/probe-target.js';
import { runLifecycleHandler } from './handlers.js';

export interface PreStopRun {
  pod: Pod;
  spec: Container;
  container: RuntimeContainer;
  handler: LifecycleHandler;
  graceSeconds: number;
}

/** As upstream's executePreStopHook: waits for the hook at most the grace period; resolves with the whole seconds it took. */
export async function runPreStopHook(deps: RuntimeDeps, run: PreStopRun): Promise<number> {
  const startedAt = Date.now();
  const giveUp = new AbortController();
  // Only an httpGet hook needs the pod's IP: no status call for the others.
  const sandboxIPs = run.handler.httpGet ? await sandboxIPsOf(deps, run.container.sandboxId) : [];
  const target = { pod: run.pod, container: run.spec, containerId: run.container.id, podIP: podIPOf(run.pod, sandboxIPs, deps.settings.hostIP) };
  const hook = runLifecycleHandler(deps.cri, run.handler, target, giveUp.signal).then((failure) => {
    if (failure === undefined) return;
    deps.logger.warn({ container: run.spec.name, containerId: run.container.id, err: failure }, 'PreStop hook failed');
    // As upstream, the event leaves the hook's output out, which may hold secrets.
    recordEvent(deps, 'Warning', 'FailedPreStopHook', 'PreStopHook failed', containerFieldPath(run.spec.name, run.container.type === 'INIT'));
  });
  const deadline = sleep(run.graceSeconds * 1000, 'timeout', { signal: giveUp.signal }).catch(() => 'done');
  const first = await Promise.race([hook.then(() => 'done'), deadline]);
  giveUp.abort();
  if (first === 'timeout') {
    deps.logger.info({ container: run.spec.name, gracePeriodSeconds: run.graceSeconds }, 'PreStop hook not completed in grace period');
    return run.graceSeconds;
  }
  return Math.floor((Date.now() - startedAt) / 1000);
}

async function sandboxIPsOf(deps: RuntimeDeps, sandboxId: string): Promise<string[]> {
  try {
    const status = (await deps.cri.podSandboxStatus({ pod_sandbox_id: sandboxId, verbose: false })).status;
    const primary = status?.network?.ip ? [status.network.ip] : [];
    return [...primary, ...(status?.network?.additional_ips ?? []).map((ip) => ip.ip)];
  } catch {
    return [];
  }
}
