// The CPU of what /stats/summary reads besides the runtime, at a given number of pods,
// on directories laid out as shardlet lays them out in a temporary directory:
// - one pass of the volume stats cache over every pod's configMap, projected token
//   and emptyDir volume (the atomic writer's ..data layout, about ten entries each);
// - one read of every pod cgroup, as for a runtime that sends no pod figures (CRI-O),
//   with the v1 layout and the host's own memory.stat as content.
//
//   npm run build && node dist/bench/stats-read-cost.js [--pods 500] [--rounds 5]
//
// Figures are the main thread's CPU (what competes with the sync loop) and the
// process's, per pass, the median of the rounds after a first warm-up one.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { POD_CGROUP_SAMPLE_MAX_AGE_MS, PodCgroupSampler } from '../src/main/stats/pod-cgroup-sampler.js';
import { VolumeStatsCache } from '../src/main/stats/volume-stats-cache.js';
import type { PodCgroupSettings } from '../src/shared/shard-protocol.js';
import type { Pod } from '../src/shared/types.js';
import { ownThreadCpuMicros } from '../src/shared/thread-cpu.js';

const { values } = parseArgs({ options: { pods: { type: 'string', default: '500' }, rounds: { type: 'string', default: '5' } } });
const POD_COUNT = Number(values.pods);
const ROUNDS = Number(values.rounds);
const VOLUME_PERIOD_MS = 60_000;
const DATA_DIR = '..2026_11_27_12_00_00.123456';
/** A v1 memory.stat of the usual length, when the host has none to copy. */
const FALLBACK_MEMORY_STAT = Array.from({ length: 36 }, (_, i) => `stat_${i} ${i * 4096}`).join('\n');

/** The atomic writer's layout: a timestamped directory of files, ..data pointing at it, a symlink per key. */
function atomicVolume(dir: string, keys: string[]): void {
  mkdirSync(join(dir, DATA_DIR), { recursive: true });
  for (const key of keys) writeFileSync(join(dir, DATA_DIR, key), `value of ${key}\n`);
  symlinkSync(DATA_DIR, join(dir, '..data'));
  for (const key of keys) symlinkSync(join('..data', key), join(dir, key));
}

function fakePods(rootDir: string): Pod[] {
  return Array.from({ length: POD_COUNT }, (_, index) => {
    const uid = `00000000-0000-4000-8000-${String(index).padStart(12, '0')}`;
    const volumes = join(rootDir, 'pods', uid, 'volumes');
    atomicVolume(join(volumes, 'kubernetes.io~configmap', 'config'), ['app.yaml', 'log.yaml', 'features.yaml']);
    atomicVolume(join(volumes, 'kubernetes.io~projected', 'kube-api-access'), ['token', 'ca.crt', 'namespace']);
    mkdirSync(join(volumes, 'kubernetes.io~empty-dir', 'cache'), { recursive: true });
    writeFileSync(join(volumes, 'kubernetes.io~empty-dir', 'cache', 'a'), Buffer.alloc(4096));
    writeFileSync(join(volumes, 'kubernetes.io~empty-dir', 'cache', 'b'), Buffer.alloc(4096));
    return {
      metadata: { uid, name: `p${index}`, namespace: 'default' },
      spec: {
        containers: [{ name: 'main', image: 'busybox' }],
        volumes: [{ name: 'config', configMap: { name: 'config' } }, { name: 'kube-api-access', projected: { sources: [] } }, { name: 'cache', emptyDir: {} }],
      },
    };
  });
}

function fakePodCgroups(cgroupDir: string, pods: Pod[]): PodCgroupSettings {
  let memoryStat = FALLBACK_MEMORY_STAT;
  try {
    memoryStat = readFileSync('/sys/fs/cgroup/memory/memory.stat', 'utf8');
  } catch {
    // A v2 host: the stand-in above.
  }
  const mounts = { cpuacct: join(cgroupDir, 'cpuacct'), memory: join(cgroupDir, 'memory') };
  for (const pod of pods) {
    const path = join('kubepods', 'besteffort', `pod${pod.metadata!.uid}`);
    mkdirSync(join(mounts.cpuacct, path), { recursive: true });
    mkdirSync(join(mounts.memory, path), { recursive: true });
    writeFileSync(join(mounts.cpuacct, path, 'cpuacct.usage'), '123456789\n');
    writeFileSync(join(mounts.memory, path, 'memory.usage_in_bytes'), '12345678\n');
    writeFileSync(join(mounts.memory, path, 'memory.stat'), memoryStat);
  }
  return { layout: { version: 'v1', mounts, description: 'v1' }, driver: 'cgroupfs', root: [] };
}

async function measure(label: string, pass: () => Promise<void>): Promise<void> {
  const mainMs: number[] = [];
  const processMs: number[] = [];
  for (let round = 0; round <= ROUNDS; round++) {
    const mainBefore = ownThreadCpuMicros();
    const processBefore = process.cpuUsage();
    await pass();
    const processUsed = process.cpuUsage(processBefore);
    if (round === 0) continue;
    mainMs.push((ownThreadCpuMicros() - mainBefore) / 1000);
    processMs.push((processUsed.user + processUsed.system) / 1000);
  }
  const median = (figures: number[]) => [...figures].sort((a, b) => a - b)[Math.floor(figures.length / 2)]!;
  console.log(`${label.padEnd(58)} main thread ${median(mainMs).toFixed(1)} ms CPU, process ${median(processMs).toFixed(1)} ms CPU per pass`);
}

async function main(): Promise<void> {
  const workDir = mkdtempSync(join(tmpdir(), 'shardlet-stats-read-cost-'));
  try {
    const pods = fakePods(join(workDir, 'root'));
    let nowMs = 0;
    const volumes = new VolumeStatsCache({ rootDir: join(workDir, 'root'), periodMs: VOLUME_PERIOD_MS, pods: () => pods, logger: pino({ level: 'silent' }), nowMs: () => nowMs, random: () => 0 });
    console.log(`${POD_COUNT} pods, ${ROUNDS} rounds`);
    await measure('volume stats: every pod\'s 3 volumes measured', async () => {
      nowMs += VOLUME_PERIOD_MS;
      await volumes.refresh();
    });
    const settings = fakePodCgroups(join(workDir, 'cgroup'), pods);
    const sampler = new PodCgroupSampler(undefined, () => nowMs);
    await measure('pod cgroups (v1, 3 files each): every pod read', async () => {
      nowMs += POD_CGROUP_SAMPLE_MAX_AGE_MS;
      await sampler.samples(settings, pods);
    });
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}

await main();
