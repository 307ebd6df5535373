// The CPU one /metrics (and /metrics/resource, /metrics/cadvisor) scrape and one /stats/summary request cost shardlet at a given
// number of running pods on the simulated runtime, and one pass of each periodic
// housekeeping loop (the eviction manager's, with and without ranking the pods, the
// image garbage collector's and the node-wide container collector's):
//
//   npm run build && node dist/bench/scrape-cost.js [--pods 500] [--workers 2] [--scrapes 20]
//
// The sim runs as its own process (its CPU is not shardlet's); the kubelet runs in
// this process with the metrics routes on a plain HTTP port, and curl, one process
// for all N requests of a kind, is the client. The figure per request is the
// kubelet's CPU (main thread, and the whole process) while curl makes N requests,
// less the CPU of an idle window as long, divided by N.
import { execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { pino, type Logger } from 'pino';
import { Kubelet } from '../src/main/kubelet.js';
import { registerMetricsRoutes } from '../src/main/metrics/metrics-routes.js';
import { parseFlags } from '../src/main/options/flags.js';
import { mergeFlags } from '../src/main/options/kubelet-config.js';
import { KubeletRoutes } from '../src/main/server/kubelet-routes.js';
import { ownThreadCpuMicros } from '../src/shared/thread-cpu.js';
import { CriClient } from '../src/shared/cri/client.js';
import { EvictionManager } from '../src/main/eviction/eviction-manager.js';
import { rankForEviction } from '../src/main/eviction/pod-ranking.js';
import { parseThresholds } from '../src/main/eviction/thresholds.js';
import { ImageGcManager } from '../src/main/images/image-gc-manager.js';
import { ContainerGcManager } from '../src/main/kuberuntime/container-gc-manager.js';
import { BENCH_NODE_NAME, benchPods, podManifest } from './bench-pods.js';
import { serveRoutes } from '../src/tools/route-server.js';

const run = promisify(execFile);
const SIM_CLI = fileURLToPath(new URL('../src/simruntime/cli.js', import.meta.url));
const START_TIMEOUT_MS = 10 * 60_000;

const { values } = parseArgs({
  options: { pods: { type: 'string', default: '500' }, workers: { type: 'string', default: '2' }, scrapes: { type: 'string', default: '20' } },
});
const pods = Number(values.pods);
const scrapes = Number(values.scrapes);

interface CpuMark {
  atMs: number;
  mainMicros: number;
  processMicros: number;
}

function mark(): CpuMark {
  const usage = process.cpuUsage();
  return { atMs: performance.now(), mainMicros: ownThreadCpuMicros(), processMicros: usage.user + usage.system };
}

async function main(): Promise<void> {
  const workDir = mkdtempSync(join(tmpdir(), 'shardlet-scrape-cost-'));
  const manifestDir = join(workDir, 'manifests');
  mkdirSync(manifestDir);
  const socket = join(workDir, 'sim.sock');
  // Instant calls: the pods start fast; the stats figures do not depend on latency.
  const sim = spawn(process.execPath, [SIM_CLI, '--socket', socket, '--latency-scale', '0', '--log-level', 'warn'], { detached: true, stdio: 'inherit' });
  await sleep(1500);
  for (const pod of benchPods(pods, ['busybox:1.35'])) writeFileSync(join(manifestDir, `${pod.name}.json`), JSON.stringify(podManifest(pod)));
  const flags = parseFlags([
    `--container-runtime-endpoint=unix://${socket}`,
    `--pod-manifest-path=${manifestDir}`,
    `--root-dir=${join(workDir, 'root')}`,
    '--read-only-port=0',
    // The routes are served by the test's own adapter: no :10250 server, no fixed healthz port.
    '--enable-server=false',
    '--healthz-port=0',
    `--workers=${values.workers}`,
    `--max-pods=${pods + 10}`,
    `--hostname-override=${BENCH_NODE_NAME}`,
  ]);
  const logger = pino({ level: 'warn' });
  const kubelet = new Kubelet(mergeFlags(undefined, flags), logger);
  await kubelet.start();
  const routes = new KubeletRoutes();
  registerMetricsRoutes(routes, { metrics: kubelet.metrics, summary: kubelet.summary, logger });
  const server = await serveRoutes(routes);
  try {
    const deadline = Date.now() + START_TIMEOUT_MS;
    const running = () => kubelet.podManager.pods().filter((pod) => kubelet.statuses.get(pod.metadata?.uid ?? '')?.phase === 'Running').length;
    while (running() < pods) {
      if (Date.now() > deadline) throw new Error(`only ${running()} of ${pods} pods running`);
      await sleep(500);
    }
    // Let the start-up churn settle: relists and syncs back to their steady pace.
    await sleep(5000);
    console.log(`${pods} pods running, --workers ${values.workers}, ${scrapes} requests per endpoint`);
    for (const path of ['/metrics', '/stats/summary', '/stats/summary?only_cpu_and_memory=true', '/metrics/resource', '/metrics/cadvisor']) {
      const url = `${server.url}${path}`;
      await run('curl', ['-sf', '-o', '/dev/null', url]);
      const before = mark();
      const { stdout } = await run('curl', ['-sf', ...Array.from({ length: scrapes }, () => ['-o', '/dev/null', '-w', '%{size_download}\\n', url]).flat()]);
      const after = mark();
      const elapsedMs = after.atMs - before.atMs;
      // The same span idle: what relists and resyncs cost anyway.
      const idleStart = mark();
      await sleep(elapsedMs);
      const idleEnd = mark();
      const perRequest = (busy: number, idle: number) => (busy - idle) / scrapes / 1000;
      const mainMs = perRequest(after.mainMicros - before.mainMicros, idleEnd.mainMicros - idleStart.mainMicros);
      const processMs = perRequest(after.processMicros - before.processMicros, idleEnd.processMicros - idleStart.processMicros);
      const bytes = Number(stdout.trim().split('\n')[0]);
      console.log(`${path.padEnd(42)} main thread ${mainMs.toFixed(1)} ms CPU, process ${processMs.toFixed(1)} ms CPU per request, ${(bytes / 1024).toFixed(0)} KiB`);
    }
    await measureHousekeeping(kubelet, `unix://${socket}`, logger);
  } finally {
    await server.close();
    await kubelet.stop();
    process.kill(-sim.pid!, 'SIGTERM');
    rmSync(workDir, { recursive: true, force: true });
  }
}

/** CPU of `passes` runs of `pass`, less an idle window as long, per run: [main thread, process] ms. */
async function cpuPerPass(pass: () => Promise<unknown>): Promise<[number, number]> {
  await pass();
  const before = mark();
  for (let i = 0; i < scrapes; i++) await pass();
  const after = mark();
  const idleStart = mark();
  await sleep(after.atMs - before.atMs);
  const idleEnd = mark();
  const per = (busy: number, idle: number) => (busy - idle) / scrapes / 1000;
  return [per(after.mainMicros - before.mainMicros, idleEnd.mainMicros - idleStart.mainMicros), per(after.processMicros - before.processMicros, idleEnd.processMicros - idleStart.processMicros)];
}

/** The eviction manager's and the image collector's passes, as they run every 10 s and 5 min. */
async function measureHousekeeping(kubelet: Kubelet, endpoint: string, logger: Logger): Promise<void> {
  const cri = new CriClient(endpoint, { timeoutMs: 30_000 });
  const eviction = new EvictionManager({
    thresholds: parseThresholds({ evictionHard: { 'memory.available': '100Mi', 'nodefs.available': '10%', 'imagefs.available': '15%' }, evictionSoft: {}, evictionSoftGracePeriodMs: {}, evictionMinimumReclaim: {} }),
    transitionPeriodMs: 300_000,
    maxPodGracePeriodSeconds: 0,
    monitoringPeriodMs: 10_000,
    nodeSummary: () => kubelet.summary.nodeSummary(),
    summary: () => kubelet.summary.summary(false),
    activePods: () => kubelet.podManager.pods(),
    evict: () => undefined,
    logger,
  });
  const imageGc = new ImageGcManager({ cri: () => cri, settings: { highThresholdPercent: 85, lowThresholdPercent: 80, minAgeMs: 120_000, maxAgeMs: 0 }, periodMs: 300_000, logger });
  const rank = async () => {
    const summary = await kubelet.summary.summary(false);
    const statsByUid = new Map(summary.pods.map((stats) => [stats.podRef.uid, stats]));
    return rankForEviction(kubelet.podManager.pods().map((pod) => ({ pod, stats: statsByUid.get(pod.metadata?.uid ?? '') })), 'memory.available');
  };
  const containerGc = new ContainerGcManager({ cri: () => cri, policy: { minAgeMs: 0, maxPerPodContainer: 1, maxContainers: 100 }, periodMs: 60_000, podState: () => 'live', logger });
  // What the container collector would decode if it listed everything instead of the dead objects only.
  const listEverything = () => Promise.all([cri.listContainers({}), cri.listPodSandbox({})]);
  const lines: Array<[string, () => Promise<unknown>]> = [
    ['eviction pass, no threshold met (every 10 s)', () => eviction.synchronize()],
    ['eviction pass ranking every pod (under pressure)', rank],
    ['image GC pass (every 5 min)', () => imageGc.collect()],
    ['container GC pass (every 1 min)', () => containerGc.collect()],
    ['  full ListContainers + ListPodSandbox, for comparison', listEverything],
  ];
  for (const [what, pass] of lines) {
    const [mainMs, processMs] = await cpuPerPass(pass);
    console.log(`${what.padEnd(50)} main thread ${mainMs.toFixed(1)} ms CPU, process ${processMs.toFixed(1)} ms CPU per pass`);
  }
  cri.close();
}

await main();
