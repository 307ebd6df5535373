// Where an httpGet, tcpSocket or grpc action connects, as upstream's prober and
// lifecycle handlers work it out: the action's host or the pod IP (the node's for a
// hostNetwork pod), a port by number or by the container's port name, the URL from
// scheme, host, port and path.
import { ErrorCodes, ShardletError } from '../../shared/errors.js';
import type { Container, Pod } from '../../shared/types.js';
import { joinHostPort } from './probe-outcome.js';

type IntOrString = number | string;

/** A port as the action gives it: a number, a numeric string, or the name of one of the container's ports. */
export function resolvePort(port: IntOrString | undefined, container: Container): number {
  let resolved: number;
  if (typeof port === 'number') {
    resolved = port;
  } else {
    const named = (container.ports ?? []).find((p) => p.name === port);
    // As upstream: a name that matches no port may still be a number written as a string.
    resolved = named ? named.containerPort : /^\d+$/.test(port ?? '') ? Number(port) : NaN;
    if (Number.isNaN(resolved)) {
      throw new ShardletError(ErrorCodes.PROBE_INVALID, `couldn't find port: ${port} in container ${container.name}`);
    }
  }
  if (!Number.isInteger(resolved) || resolved <= 0 || resolved >= 65536) {
    throw new ShardletError(ErrorCodes.PROBE_INVALID, `invalid port number: ${resolved}`);
  }
  return resolved;
}

/** The action's host, else the pod's IP. */
export function resolveHost(host: string | undefined, podIP: string): string {
  return host || podIP;
}

/** As upstream's formatURL: the path may carry a query; scheme and host:port are set on it. */
export function probeUrl(scheme: string | undefined, host: string, port: number, path: string | undefined): URL {
  const protocol = (scheme ?? 'HTTP').toLowerCase();
  const rawPath = path ?? '';
  const withSlash = rawPath.startsWith('/') ? rawPath : `/${rawPath}`;
  return new URL(`${protocol}://${joinHostPort(host, port)}${withSlash}`);
}

/** The pod's IP for probes and hooks: the newest sandbox's, the node's for a hostNetwork pod. */
export function podIPOf(pod: Pod | undefined, sandboxIPs: string[] | undefined, hostIP: string): string {
  if (pod?.spec?.hostNetwork) return hostIP;
  return sandboxIPs?.[0] || hostIP;
}
