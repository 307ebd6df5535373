// What the kubelet knows about the machine it runs on, read the way cadvisor's
// machine info reads it (cores, MemTotal, the root filesystem's size, huge page
// pools, machine and boot IDs, kernel and OS image), plus Go's GOOS/GOARCH names
// as upstream's GoRuntime setter reports them. The parsers are pure; only
// readMachineInfo touches the file system.
import { readdirSync, readFileSync, statfsSync } from 'node:fs';
import { availableParallelism, endianness, release } from 'node:os';
import { dirname, join } from 'node:path';

/** One huge page pool, as /sys/kernel/mm/hugepages/hugepages-<size>kB describes it. */
export interface HugePagePool {
  pageSizeKiB: number;
  numPages: number;
}

export interface MachineInfo {
  numCores: number;
  memoryCapacityBytes: number;
  /** Size of the file system that holds the kubelet's root dir. */
  ephemeralStorageCapacityBytes: number;
  hugePages: HugePagePool[];
  machineID: string;
  systemUUID: string;
  bootID: string;
  kernelVersion: string;
  osImage: string;
  operatingSystem: string;
  architecture: string;
}

/** cadvisor's ContainerOsVersion when /etc/os-release says nothing. */
export const DEFAULT_OS_IMAGE = 'Linux';

const BYTES_PER_KIB = 1024;
const HUGEPAGE_DIR_PATTERN = /^hugepages-(\d+)kB$/;

/** MemTotal from /proc/meminfo in bytes (the file counts in kB, meaning KiB). */
export function parseMemTotalBytes(meminfo: string): number | undefined {
  const match = /^MemTotal:\s*(\d+)\s*kB\s*$/m.exec(meminfo);
  return match ? Number(match[1]) * BYTES_PER_KIB : undefined;
}

/** PRETTY_NAME from /etc/os-release with shell quoting removed; DEFAULT_OS_IMAGE when absent. */
export function parseOsReleasePrettyName(osRelease: string): string {
  const match = /^PRETTY_NAME=(.*)$/m.exec(osRelease);
  if (!match) return DEFAULT_OS_IMAGE;
  let value = match[1].trim();
  const quote = value[0];
  if ((quote === '"' || quote === "'") && value.endsWith(quote) && value.length >= 2) {
    value = value.slice(1, -1);
    if (quote === '"') value = value.replace(/\\(["\\$`])/g, '$1');
  }
  return value === '' ? DEFAULT_OS_IMAGE : value;
}

/** Node's process.arch as Go's GOARCH (what kubernetes.io/arch carries). */
export function goArch(nodeArch: string, byteOrder: 'BE' | 'LE' = 'LE'): string {
  switch (nodeArch) {
    case 'x64':
      return 'amd64';
    case 'ia32':
      return '386';
    case 'ppc64':
      return byteOrder === 'LE' ? 'ppc64le' : 'ppc64';
    case 'mipsel':
      return 'mipsle';
    default:
      return nodeArch; // arm64, arm, s390x, riscv64, loong64, mips have the same names
  }
}

/** The page size in KiB from a /sys/kernel/mm/hugepages entry name ("hugepages-2048kB" → 2048). */
export function parseHugePageDirName(name: string): number | undefined {
  const match = HUGEPAGE_DIR_PATTERN.exec(name);
  return match ? Number(match[1]) : undefined;
}

/** A one-line file's trimmed text, '' when it cannot be read. */
function readTrimmed(path: string): string {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return '';
  }
}

/** Total bytes of the file system holding path (or its nearest existing parent). */
export function fileSystemCapacityBytes(path: string): number {
  let current = path;
  for (;;) {
    try {
      const stats = statfsSync(current);
      return stats.blocks * stats.bsize;
    } catch (err) {
      const parent = dirname(current);
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || parent === current) return 0;
      current = parent;
    }
  }
}

function readHugePagePools(hostRoot: string): HugePagePool[] {
  const poolsDir = join(hostRoot, '/sys/kernel/mm/hugepages');
  let entries: string[];
  try {
    entries = readdirSync(poolsDir);
  } catch {
    return [];
  }
  const pools: HugePagePool[] = [];
  for (const entry of entries) {
    const pageSizeKiB = parseHugePageDirName(entry);
    if (pageSizeKiB === undefined) continue;
    const numPages = Number(readTrimmed(join(poolsDir, entry, 'nr_hugepages')) || '0');
    pools.push({ pageSizeKiB, numPages: Number.isFinite(numPages) ? numPages : 0 });
  }
  return pools.sort((a, b) => a.pageSizeKiB - b.pageSizeKiB);
}

export interface MachineInfoSources {
  /** The kubelet's root dir: its file system is the node's ephemeral storage. */
  rootDir: string;
  /** Prefix for /proc, /sys and /etc (tests point it at a fake tree); '' on a real host. */
  hostRoot?: string;
}

/** Reads the machine once, as cadvisor's GetMachineInfo and VersionInfo do. */
export function readMachineInfo({ rootDir, hostRoot = '' }: MachineInfoSources): MachineInfo {
  const hostPath = (path: string): string => (hostRoot === '' ? path : join(hostRoot, path));
  // cadvisor falls back to the D-Bus copy of the machine ID.
  const machineID = readTrimmed(hostPath('/etc/machine-id')) || readTrimmed(hostPath('/var/lib/dbus/machine-id'));
  return {
    numCores: availableParallelism(),
    memoryCapacityBytes: parseMemTotalBytes(readTrimmed(hostPath('/proc/meminfo'))) ?? 0,
    ephemeralStorageCapacityBytes: fileSystemCapacityBytes(rootDir),
    hugePages: readHugePagePools(hostRoot),
    machineID,
    // product_uuid is readable by root only; cadvisor reports '' otherwise too.
    systemUUID: readTrimmed(hostPath('/sys/class/dmi/id/product_uuid')),
    bootID: readTrimmed(hostPath('/proc/sys/kernel/random/boot_id')),
    kernelVersion: release(),
    // /usr/lib/os-release serves stateless systems, as cadvisor's getOperatingSystem.
    osImage: parseOsReleasePrettyName(
      readTrimmed(hostPath('/etc/os-release')) || readTrimmed(hostPath('/usr/lib/os-release')),
    ),
    operatingSystem: 'linux',
    architecture: goArch(process.arch, endianness()),
  };
}
