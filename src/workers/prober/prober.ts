// One probe of a container, as upstream's prober.probe / runProbe: pick the action
// (exec, httpGet, tcpSocket, grpc), run it with the probe's timeout, retry only a
// probe that could not run at all (upstream's maxProbeRetries).
import type { CriClient } from '../../shared/cri/client.js';
import type { Container, Probe } from '../../shared/types.js';
import { execProbe } from './exec-probe.js';
import { grpcProbe } from './grpc-probe.js';
import { httpProbe } from './http-probe.js';
import { errored, type ProbeOutcome } from './probe-outcome.js';
import { probeUrl, resolveHost, resolvePort } from './probe-target.js';
import { tcpProbe } from './tcp-probe.js';

/** Upstream's maxProbeRetries: a probe that errors (not one that fails) is tried again at once. */
export const MAX_PROBE_RETRIES = 3;
/** Upstream's defaults for a probe's fields (API defaulting). */
export const DEFAULT_PERIOD_SECONDS = 10;
export const DEFAULT_TIMEOUT_SECONDS = 1;
export const DEFAULT_SUCCESS_THRESHOLD = 1;
export const DEFAULT_FAILURE_THRESHOLD = 3;

export interface ProbeSubject {
  container: Container;
  containerId: string;
  /** The pod's IP (the node's for a hostNetwork pod): the default host of httpGet, tcpSocket and grpc. */
  podIP: string;
}

/** Runs one probe; never throws. */
export type ProbeRunner = (probe: Probe, subject: ProbeSubject) => Promise<ProbeOutcome>;

export function probeTimeoutMs(probe: Probe): number {
  return Math.max(probe.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS, 1) * 1000;
}

/** The probe runner of a shard, over its CRI channel for exec probes. */
export function createProbeRunner(cri: CriClient): ProbeRunner {
  return async (probe, subject) => {
    let outcome: ProbeOutcome = errored('probe not run');
    for (let attempt = 0; attempt < MAX_PROBE_RETRIES; attempt++) {
      outcome = await runOnce(cri, probe, subject);
      if (outcome.error === undefined) return outcome;
    }
    return outcome;
  };
}

async function runOnce(cri: CriClient, probe: Probe, subject: ProbeSubject): Promise<ProbeOutcome> {
  const timeoutMs = probeTimeoutMs(probe);
  try {
    if (probe.exec) return await execProbe(cri, subject.containerId, probe.exec.command ?? [], timeoutMs / 1000);
    if (probe.httpGet) {
      const action = probe.httpGet;
      const url = probeUrl(action.scheme, resolveHost(action.host, subject.podIP), resolvePort(action.port, subject.container), action.path);
      return await httpProbe({ url, headers: action.httpHeaders ?? [], timeoutMs });
    }
    if (probe.tcpSocket) {
      const action = probe.tcpSocket;
      return await tcpProbe(resolveHost(action.host, subject.podIP), resolvePort(action.port, subject.container), timeoutMs);
    }
    if (probe.grpc) return await grpcProbe(subject.podIP, resolvePort(probe.grpc.port, subject.container), probe.grpc.service ?? '', timeoutMs);
    return errored('missing probe handler');
  } catch (err) {
    return errored((err as Error).message);
  }
}
