// The tcpSocket probe, as upstream's pkg/probe/tcp: success when a connection opens
// within the timeout; it is closed at once.
import net from 'node:net';
import { dialErrorText, failed, joinHostPort, succeeded, type ProbeOutcome } from './probe-outcome.js';

export function tcpProbe(host: string, port: number, timeoutMs: number): Promise<ProbeOutcome> {
  const address = joinHostPort(host, port);
  return new Promise<ProbeOutcome>((resolve) => {
    const socket = net.connect({ host, port });
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(failed(`dial tcp ${address}: i/o timeout`));
    }, timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(succeeded());
    });
    socket.once('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      resolve(failed(dialErrorText(address, err)));
    });
  });
}
