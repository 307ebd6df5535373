// The node's primary IP when --node-ip is not given: the first non-internal IPv4
// address, as upstream's default address selection prefers.
import { networkInterfaces } from 'node:os';

export function detectHostIP(): string {
  for (const addresses of Object.values(networkInterfaces())) {
    for (const address of addresses ?? []) {
      if (address.family === 'IPv4' && !address.internal) return address.address;
    }
  }
  return '127.0.0.1';
}
