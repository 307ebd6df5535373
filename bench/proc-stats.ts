// What a process costs, read from /proc as an operator's top would: CPU time of
// all its threads and its resident memory.
import { readFileSync } from 'node:fs';

/** USER_HZ: /proc reports CPU time in ticks of 10 ms on Linux (x86-64 and arm64). */
const CLOCK_TICKS_PER_SECOND = 100;
const KIB_PER_MIB = 1024;

/** utime + stime of every thread of the process, in seconds. */
export function processCpuSeconds(pid: number): number {
  // Fields after the command name, which may itself hold spaces and parentheses.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
  const [utimeTicks, stimeTicks] = [Number(fields[11]), Number(fields[12])];
  return (utimeTicks + stimeTicks) / CLOCK_TICKS_PER_SECOND;
}

export interface ProcessMemory {
  /** VmRSS: resident now. */
  rssMiB: number;
  /** VmHWM: the most ever resident. */
  peakRssMiB: number;
}

export function processMemory(pid: number): ProcessMemory {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(/\s(\d+)\s+kB/.exec(status.split('\n').find((line) => line.startsWith(`${field}:`)) ?? '')?.[1] ?? 0);
  return { rssMiB: kib('VmRSS') / KIB_PER_MIB, peakRssMiB: kib('VmHWM') / KIB_PER_MIB };
}
