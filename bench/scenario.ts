// One density scenario: a runtime (a fresh simulated one in this process, so its
// call counts are at hand, or real containerd), a shardlet process against it, N
// static pods written at once, and the figures the pod-startup SLO and the design
// ask for.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CriClient } from '../src/shared/cri/client.js';
import { startSimRuntime } from '../src/simruntime/server.js';
import { freePort } from '../src/tools/free-port.js';
import { percentile } from './stats.js';

const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const POLL_PERIOD_MS = 200;
const SCENARIO_TIMEOUT_MS = 10 * 60_000;

export interface ScenarioSpec {
  pods: number;
  workers: number;
  images: number;
  maxParallelImagePulls: number;
}

/** The runtime a scenario runs against: its endpoint, an image name per index, and its call counter if it has one. */
export interface BenchRuntime {
  name: string;
  endpoint: string;
  imageFor(index: number): string;
  totalCalls?: () => number;
  close(): Promise<void>;
  /** Real runtimes keep pods after shardlet exits: remove them first. */
  cleanUpPods: boolean;
}

/** A fresh simulated runtime in this process, with the default latency model. */
export async function simRuntime(workDir: string, images: number): Promise<BenchRuntime> {
  const sim = await startSimRuntime({ socketPath: join(workDir, 'sim.sock') });
  return {
    name: 'sim',
    endpoint: sim.endpoint,
    imageFor: (index) => `registry.bench/app-${index % images}:1.0`,
    totalCalls: () => sim.stats().totalCalls,
    close: () => sim.close(),
    cleanUpPods: false,
  };
}

export interface ScenarioResult extends ScenarioSpec {
  allRunningMs: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  podsPerSecond: number;
  cpuSeconds: number;
  peakRssMiB: number;
  criCalls: number;
  criCallsPerPod: number;
}

/** A pod per file, each with one container; images spread over several names to exercise pull de-duplication. */
export function writeManifest(dir: string, index: number, image: string): void {
  const name = `bench-${String(index).padStart(4, '0')}`;
  const manifest = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'bench' },
    spec: { containers: [{ name: 'app', image, command: ['sh', '-c', 'sleep 3600'] }] },
  };
  writeFileSync(join(dir, `${name}.json`), JSON.stringify(manifest));
}

interface StartupRecord {
  runningAtMs?: number;
}

export async function runScenario(
  spec: ScenarioSpec,
  openRuntime: (workDir: string) => Promise<BenchRuntime>,
  onProgress: (done: number) => void,
): Promise<ScenarioResult> {
  const workDir = mkdtempSync(join(tmpdir(), 'shardlet-bench-'));
  const manifests = join(workDir, 'manifests');
  mkdirSync(manifests);
  const runtime = await openRuntime(workDir);
  const port = await freePort();
  const kubelet = spawn(
    process.execPath,
    [
      join(PACKAGE_ROOT, 'dist/src/main/cli.js'),
      `--container-runtime-endpoint=${runtime.endpoint}`,
      `--pod-manifest-path=${manifests}`,
      `--root-dir=${join(workDir, 'root')}`,
      `--read-only-port=${port}`,
      `--workers=${spec.workers}`,
      `--max-pods=${spec.pods + 10}`,
      '--serialize-image-pulls=false',
      `--max-parallel-image-pulls=${spec.maxParallelImagePulls}`,
      '--hostname-override=bench-node',
    ],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  try {
    await waitFor(async () => (await fetchJson(`http://127.0.0.1:${port}/healthz`, true)) !== undefined, SCENARIO_TIMEOUT_MS);
    const callsBefore = runtime.totalCalls?.() ?? 0;
    const cpuBefore = processCpuSeconds(kubelet.pid!);
    const writtenAtMs = Date.now();
    for (let i = 0; i < spec.pods; i++) writeManifest(manifests, i, runtime.imageFor(i));
    let records: StartupRecord[] = [];
    await waitFor(async () => {
      records = ((await fetchJson(`http://127.0.0.1:${port}/stats/startup`)) as { items: StartupRecord[] }).items;
      const done = records.filter((r) => r.runningAtMs !== undefined).length;
      onProgress(done);
      return done >= spec.pods;
    }, SCENARIO_TIMEOUT_MS);
    const latencies = records.map((r) => r.runningAtMs! - writtenAtMs).sort((a, b) => a - b);
    const allRunningMs = latencies[latencies.length - 1];
    const criCalls = runtime.totalCalls ? runtime.totalCalls() - callsBefore : Number.NaN;
    return {
      ...spec,
      allRunningMs,
      p50Ms: percentile(latencies, 0.5),
      p90Ms: percentile(latencies, 0.9),
      p99Ms: percentile(latencies, 0.99),
      podsPerSecond: spec.pods / (allRunningMs / 1000),
      cpuSeconds: processCpuSeconds(kubelet.pid!) - cpuBefore,
      peakRssMiB: peakRssMiB(kubelet.pid!),
      criCalls,
      criCallsPerPod: criCalls / spec.pods,
    };
  } finally {
    if (runtime.cleanUpPods && kubelet.exitCode === null) await removeAllPods(manifests, runtime.endpoint);
    kubelet.kill('SIGTERM');
    await new Promise((resolve) => kubelet.once('exit', resolve));
    await runtime.close();
    rmSync(workDir, { recursive: true, force: true });
  }
}

/** Deletes every manifest and waits until shardlet has removed the bench pods from the runtime. */
async function removeAllPods(manifests: string, endpoint: string): Promise<void> {
  for (const file of readdirSync(manifests)) rmSync(join(manifests, file));
  const cri = new CriClient(endpoint, { timeoutMs: 30_000 });
  try {
    await waitFor(async () => {
      const reply = await cri.listPodSandbox({ filter: { label_selector: { 'io.kubernetes.pod.namespace': 'bench' } } });
      return reply.items.length === 0;
    }, SCENARIO_TIMEOUT_MS);
  } finally {
    cri.close();
  }
}

/** utime + stime of every thread of the process, from /proc (clock ticks of 10 ms). */
export function processCpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  const CLOCK_TICKS_PER_SECOND = 100;
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
}

export function peakRssMiB(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmHWM:'));
  return Number(line?.split(/\s+/)[1] ?? 0) / 1024;
}

async function fetchJson(url: string, quiet = false): Promise<unknown> {
  try {
    const reply = await fetch(url);
    return reply.headers.get('content-type')?.includes('json') ? await reply.json() : await reply.text();
  } catch (err) {
    if (quiet) return undefined;
    throw err;
  }
}

async function waitFor(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, POLL_PERIOD_MS));
  }
  throw new Error(`bench: timed out after ${timeoutMs} ms`);
}
