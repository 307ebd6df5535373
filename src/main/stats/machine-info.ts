// The machine facts cAdvisor's machine collector labels its series with
// (machine_cpu_cores, machine_memory_bytes):
// read once, as cAdvisor reads MachineInfo once at start-up. A file that cannot be
// read (product_uuid is root-only on most hosts) gives an empty label value, as
// cAdvisor leaves such a field empty.
import { readFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';

export interface MachineInfo {
  /** Logical CPUs (cAdvisor's NumCores). */
  cpuCores: number;
  memoryBytes: number;
  bootId: string;
  machineId: string;
  systemUuid: string;
}

function firstLine(path: string): string {
  try {
    return readFileSync(path, 'utf8').split('\n')[0]!.trim();
  } catch {
    return '';
  }
}

let cached: MachineInfo | undefined;

export function machineInfo(): MachineInfo {
  cached ??= {
    cpuCores: cpus().length,
    memoryBytes: totalmem(),
    bootId: firstLine('/proc/sys/kernel/random/boot_id'),
    machineId: firstLine('/etc/machine-id') || firstLine('/var/lib/dbus/machine-id'),
    systemUuid: firstLine('/sys/class/dmi/id/product_uuid'),
  };
  return cached;
}
