// shardlet as the bench runs it: its own process (so /proc gives its CPU and memory
// alone), flags on the command line, and its read-only port for health, per-pod
// start records and CRI call counters.
import type { ProbeStats } from '../src/shared/shard-protocol.js';
import type { ThreadCpuReport } from '../src/shared/thread-cpu.js';
import type { ThreadHeapReport } from '../src/shared/thread-heap.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { StartupRecord } from '../src/main/status/startup-tracker.js';
import type { Pod } from '../src/shared/types.js';
import { freePort } from '../src/tools/free-port.js';
import { detectCgroupLayout, removeCgroup } from '../src/shared/cm/cgroup-fs.js';
import { BENCH_NODE_NAME } from './bench-pods.js';
import type { CriCallsByMethod } from './bench-runtime.js';
import type { ImagePulls } from './scenarios.js';

const SHARDLET_CLI = fileURLToPath(new URL('../src/main/cli.js', import.meta.url));
const READY_TIMEOUT_MS = 60_000;
const READY_POLL_MS = 100;
const STOP_GRACE_MS = 10_000;
/** Enough of shardlet's stderr to say why it died. */
const STDERR_TAIL_CHARS = 4_000;

/** One pod's start as shardlet saw it (GET /stats/startup); epoch ms on this machine. */
export type { StartupRecord };

/** Where a run's shardlet keeps pod directories and pod logs: inside the run's work directory. */
export function shardletDirs(workDir: string): { rootDir: string; podLogsDir: string } {
  return { rootDir: join(workDir, 'root'), podLogsDir: join(workDir, 'pod-logs') };
}

export interface ShardletLaunch {
  endpoint: string;
  workDir: string;
  workers: number;
  maxPods: number;
  imagePulls: ImagePulls;
  /** Static pod directory, for the static source. */
  manifestDir?: string;
  /** For the API source. */
  kubeconfig?: string;
  /** --runtime-creation-limit; shardlet's default (adaptive) without. */
  creationLimit?: string;
}

export class ShardletProcess {
  private stderrTail = '';
  private readonly exited: Promise<void>;

  private constructor(
    private readonly child: ChildProcess,
    readonly port: number,
    private readonly cgroupRoot: string,
  ) {
    child.stderr!.on('data', (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString()).slice(-STDERR_TAIL_CHARS);
    });
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
  }

  /** Starts shardlet and waits until its read-only /healthz answers. */
  static async start(launch: ShardletLaunch): Promise<ShardletProcess> {
    const port = await freePort();
    const { rootDir, podLogsDir } = shardletDirs(launch.workDir);
    // podLogsDir has no flag upstream: a config file keeps the run's pod logs out of /var/log/pods.
    const configPath = join(launch.workDir, 'kubelet-config.json');
    mkdirSync(podLogsDir, { recursive: true });
    // Standalone runs have no client for webhook authn/authz (a config file's defaults): off, as upstream's standalone guide sets them.
    const standaloneAuth = launch.kubeconfig ? {} : { authentication: { webhook: { enabled: false } }, authorization: { mode: 'AlwaysAllow' } };
    // Each run's pod cgroups under a root of its own, removed when the run ends: the
    // simulated pods a run leaves behind would otherwise be the next run's orphans, and
    // their removal its cost.
    const cgroupRoot = `/shardlet-bench-${process.pid}-${port}`;
    writeFileSync(configPath, JSON.stringify({ apiVersion: 'kubelet.config.k8s.io/v1beta1', kind: 'KubeletConfiguration', podLogsDir, cgroupRoot, ...standaloneAuth }));
    const apiPort = await freePort();
    const pulls = launch.imagePulls.serialize
      ? ['--serialize-image-pulls=true']
      : ['--serialize-image-pulls=false', `--max-parallel-image-pulls=${launch.imagePulls.maxParallel}`];
    const child = spawn(
      process.execPath,
      [
        SHARDLET_CLI,
        `--container-runtime-endpoint=${launch.endpoint}`,
        `--config=${configPath}`,
        `--root-dir=${rootDir}`,
        `--read-only-port=${port}`,
        // Never the fixed 10250 / 10248: other runs may share the machine.
        '--address=127.0.0.1',
        `--port=${apiPort}`,
        '--healthz-port=0',
        `--workers=${launch.workers}`,
        `--max-pods=${launch.maxPods}`,
        `--hostname-override=${BENCH_NODE_NAME}`,
        ...pulls,
        ...(launch.manifestDir ? [`--pod-manifest-path=${launch.manifestDir}`] : []),
        ...(launch.kubeconfig ? [`--kubeconfig=${launch.kubeconfig}`] : []),
        ...(launch.creationLimit ? [`--runtime-creation-limit=${launch.creationLimit}`] : []),
      ],
      // Its JSON logs are part of what it costs, but nobody reads them here.
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    const shardlet = new ShardletProcess(child, port, cgroupRoot);
    try {
      await shardlet.waitHealthy();
    } catch (err) {
      await shardlet.stop();
      throw err;
    }
    return shardlet;
  }

  get pid(): number {
    return this.child.pid!;
  }

  /** Throws with the end of its stderr when shardlet is no longer running. */
  assertRunning(): void {
    if (this.child.exitCode !== null || this.child.signalCode !== null) {
      throw new Error(`shardlet exited (${this.child.exitCode ?? this.child.signalCode}): ${this.stderrTail.trim() || 'no stderr'}`);
    }
  }

  /** Start records of every pod, or of those first seen at or after `seenSinceMs`. */
  async startupRecords(seenSinceMs?: number): Promise<StartupRecord[]> {
    const query = seenSinceMs === undefined ? '' : `?seenSince=${Math.floor(seenSinceMs)}`;
    const reply = (await this.getJson(`/stats/startup${query}`)) as { items: StartupRecord[] };
    return reply.items;
  }

  /** The pods shardlet runs, with the statuses it computed (read-only /pods). */
  async pods(): Promise<Pod[]> {
    return ((await this.getJson('/pods')) as { items: Pod[] }).items;
  }

  /** shardlet's own CRI call counters (all threads, since start); undefined when this build has none. */
  async criCalls(): Promise<CriCallsByMethod | undefined> {
    const reply = await fetch(`http://127.0.0.1:${this.port}/stats/cri`);
    if (reply.status === 404) return undefined;
    if (!reply.ok) throw new Error(`shardlet GET /stats/cri: HTTP ${reply.status}`);
    return ((await reply.json()) as { calls: CriCallsByMethod }).calls;
  }

  /** CPU time of each of shardlet's threads so far; undefined when this build does not report it. */
  async threadCpu(): Promise<ThreadCpuReport | undefined> {
    const reply = await fetch(`http://127.0.0.1:${this.port}/stats/threads`);
    if (reply.status === 404) return undefined;
    if (!reply.ok) throw new Error(`shardlet GET /stats/threads: HTTP ${reply.status}`);
    return (await reply.json()) as ThreadCpuReport;
  }

  /** The heap of each of shardlet's threads now; undefined when this build does not report it. */
  async threadHeaps(): Promise<ThreadHeapReport | undefined> {
    const reply = await fetch(`http://127.0.0.1:${this.port}/stats/heap`);
    if (reply.status === 404) return undefined;
    if (!reply.ok) throw new Error(`shardlet GET /stats/heap: HTTP ${reply.status}`);
    return (await reply.json()) as ThreadHeapReport;
  }

  /** Each shard's probe counts and recent probe durations (GET /stats/probes). */
  async probeStats(): Promise<ProbeStats[]> {
    return ((await this.getJson('/stats/probes')) as { shards: ProbeStats[] }).shards;
  }

  /** SIGTERM, then SIGKILL if it has not exited within the grace period. */
  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      this.child.kill('SIGTERM');
      const killTimer = setTimeout(() => this.child.kill('SIGKILL'), STOP_GRACE_MS);
      await this.exited;
      clearTimeout(killTimer);
    }
    await this.removeCgroups();
  }

  /**
   * The run's cgroup tree, from every hierarchy; one a real runtime still runs processes
   * in stays (the run's teardown calls this again once containerd's pods are removed).
   */
  async removeCgroups(): Promise<void> {
    try {
      await removeCgroup(await detectCgroupLayout(), this.cgroupRoot);
    } catch {
      // Not root, no cgroup filesystem, or processes still in it: nothing the run's figures depend on.
    }
  }

  private async waitHealthy(): Promise<void> {
    const deadline = Date.now() + READY_TIMEOUT_MS;
    while (Date.now() < deadline) {
      this.assertRunning();
      const reply = await fetch(`http://127.0.0.1:${this.port}/healthz`).catch(() => undefined);
      if (reply?.ok) return;
      await new Promise((resolve) => setTimeout(resolve, READY_POLL_MS));
    }
    throw new Error(`shardlet /healthz did not answer ok within ${READY_TIMEOUT_MS} ms`);
  }

  private async getJson(path: string): Promise<unknown> {
    const reply = await fetch(`http://127.0.0.1:${this.port}${path}`);
    if (!reply.ok) throw new Error(`shardlet GET ${path}: HTTP ${reply.status}`);
    return reply.json();
  }
}
