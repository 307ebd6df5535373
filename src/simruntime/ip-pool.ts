// Pod IPs for non-host-network sandboxes, from the range Debian's and
// containerd's sample bridge CNI config use (10.88.0.0/16), so addresses look
// like the ones a node with the default bridge network hands out.
export const POD_SUBNET = '10.88.0.0/16';
/** .0.0 is the network, .0.1 the bridge gateway, .255.255 broadcast. */
const FIRST_HOST_OFFSET = 2;
const LAST_HOST_OFFSET = 65_534;
const SUBNET_BASE = (10 << 24) | (88 << 16);

export class IpPool {
  private readonly inUse = new Set<number>();
  private nextOffset = FIRST_HOST_OFFSET;

  /** Next free address, walking round the range like host-local IPAM does. */
  allocate(): string {
    const size = LAST_HOST_OFFSET - FIRST_HOST_OFFSET + 1;
    for (let tried = 0; tried < size; tried++) {
      const offset = this.nextOffset;
      this.nextOffset = offset >= LAST_HOST_OFFSET ? FIRST_HOST_OFFSET : offset + 1;
      if (!this.inUse.has(offset)) {
        this.inUse.add(offset);
        return formatIp(SUBNET_BASE + offset);
      }
    }
    throw new Error(`no free IP left in ${POD_SUBNET}`);
  }

  release(ip: string): void {
    if (!ip) return;
    this.inUse.delete(parseIp(ip) - SUBNET_BASE);
  }

  get allocatedCount(): number {
    return this.inUse.size;
  }
}

function formatIp(value: number): string {
  return [value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255].join('.');
}

function parseIp(ip: string): number {
  return ip.split('.').reduce((acc, part) => acc * 256 + Number(part), 0);
}
