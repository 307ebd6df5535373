// Host port conflicts, as the scheduler's NodePorts plugin (getContainerPorts, and
// HostPortInfo.CheckConflict in framework/types.go): only app containers' ports with a
// hostPort count; protocol defaults to TCP and the host IP to 0.0.0.0, which clashes
// with the same port and protocol on any address.
import type { Pod } from '../types.js';

export const DEFAULT_HOST_IP = '0.0.0.0';
const DEFAULT_PROTOCOL = 'TCP';

export interface HostPort {
  hostIP: string;
  protocol: string;
  port: number;
}

/** The host ports a pod's app containers ask for, with upstream's defaults applied. */
export function podHostPorts(pod: Pod): HostPort[] {
  const ports: HostPort[] = [];
  for (const container of pod.spec?.containers ?? []) {
    for (const port of container.ports ?? []) {
      if (!port.hostPort || port.hostPort <= 0) continue;
      ports.push({
        hostIP: port.hostIP || DEFAULT_HOST_IP,
        protocol: port.protocol || DEFAULT_PROTOCOL,
        port: port.hostPort,
      });
    }
  }
  return ports;
}

/** As HostPortInfo.CheckConflict for one pair: same port and protocol, and the same address or 0.0.0.0 on either side. */
export function hostPortsConflict(wanted: HostPort, used: HostPort): boolean {
  if (wanted.port !== used.port || wanted.protocol !== used.protocol) return false;
  return wanted.hostIP === DEFAULT_HOST_IP || used.hostIP === DEFAULT_HOST_IP || wanted.hostIP === used.hostIP;
}

/** As NodePorts' fitsPorts: false when any wanted host port is taken by another pod. */
export function hostPortsFit(pod: Pod, isTaken: (port: HostPort) => boolean): boolean {
  return !podHostPorts(pod).some(isTaken);
}
