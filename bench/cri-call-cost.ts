// The client-side CPU of one CRI call through CriClient, per hot method: what a pod
// start, a pod's runtime read and an exec probe cost shardlet on top of the
// runtime's own work.
//
//   npm run build && node dist/bench/cri-call-cost.js [--calls 2000] [--concurrency 1,16] [--rounds 3]
//
// The simulated runtime runs as its own process on the instant profile (every call
// answers at once), so this process's CPU (process.cpuUsage: every thread of it,
// grpc-js, HTTP/2, the codecs and GC) is the client's alone. Each method is called
// `calls` times with `concurrency` calls in flight, after a warm-up; the figure is
// CPU µs per call, with wall µs per call beside it. The requests are what the
// kubelet sends for a bench pod (bench-pods.ts). Every round repeats the whole set;
// the table shows the median round and the spread (min–max) over the rounds.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { CriClient } from '../src/shared/cri/client.js';
import type * as cri from '../src/shared/cri/types.js';

const SIM_CLI = fileURLToPath(new URL('../src/simruntime/cli.js', import.meta.url));
const SIM_START_TIMEOUT_MS = 20_000;
const SIM_POLL_PERIOD_MS = 100;
const CALL_TIMEOUT_MS = 30_000;
const WARMUP_CALLS = 300;
const IMAGE = 'busybox:1.35';
const POD_NAMESPACE = 'bench';

const { values } = parseArgs({
  options: {
    calls: { type: 'string', default: '2000' },
    concurrency: { type: 'string', default: '1,16' },
    rounds: { type: 'string', default: '3' },
  },
});
const callsPerMethod = Number(values.calls);
const concurrencies = values.concurrency.split(',').map(Number);
const rounds = Number(values.rounds);

/** The objects one round made, which the later methods of the round act on. */
interface RoundObjects {
  /** What PullImage answered: the kubelet creates containers from the resolved reference. */
  imageRef: string;
  sandboxIds: string[];
  sandboxConfigs: cri.PodSandboxConfig[];
  containerIds: string[];
}

/** One hot method: the call it makes for the i-th object of the round. */
interface HotMethod {
  name: string;
  call(client: CriClient, objects: RoundObjects, index: number): Promise<unknown>;
}

/** A bench pod's sandbox config as buildSandboxConfig makes it (standalone, file source). */
function sandboxConfig(logRoot: string, round: number, index: number): cri.PodSandboxConfig {
  const name = `bench-${round}-${index}`;
  const uid = `00000000-0000-4000-8000-${String(round * 1_000_000 + index).padStart(12, '0')}`;
  return {
    metadata: { name, uid, namespace: POD_NAMESPACE, attempt: 0 },
    hostname: name,
    log_directory: join(logRoot, `${POD_NAMESPACE}_${name}_${uid}`),
    dns_config: { servers: ['10.96.0.10'], searches: ['bench.svc.cluster.local', 'svc.cluster.local', 'cluster.local'], options: ['ndots:5'] },
    port_mappings: [],
    labels: { app: 'shardlet-bench', 'io.kubernetes.pod.name': name, 'io.kubernetes.pod.namespace': POD_NAMESPACE, 'io.kubernetes.pod.uid': uid },
    annotations: { 'kubernetes.io/config.source': 'file', 'kubernetes.io/config.hash': uid, 'kubernetes.io/config.seen': '2026-01-01T00:00:00.000000000Z' },
    linux: {
      cgroup_parent: '',
      security_context: { namespace_options: { network: 'POD', pid: 'CONTAINER', ipc: 'POD' }, privileged: false, seccomp: { profile_type: 'RuntimeDefault' }, supplemental_groups: [] },
      sysctls: {},
    },
  };
}

const MASKED_PATHS = ['/proc/asound', '/proc/acpi', '/proc/kcore', '/proc/keys', '/proc/latency_stats', '/proc/timer_list', '/proc/timer_stats', '/proc/sched_debug', '/proc/scsi', '/sys/firmware', '/sys/devices/virtual/powercap'];
const READONLY_PATHS = ['/proc/bus', '/proc/fs', '/proc/irq', '/proc/sys', '/proc/sysrq-trigger'];

/** The bench pod's app container as buildContainerConfig makes it. */
function containerConfig(sandbox: cri.PodSandboxConfig, imageRef: string): cri.ContainerConfig {
  const podDir = `/var/lib/kubelet/pods/${sandbox.metadata!.uid}`;
  return {
    metadata: { name: 'app', attempt: 0 },
    image: { image: imageRef, user_specified_image: IMAGE },
    command: ['sleep', '3600'],
    args: [],
    working_dir: '',
    envs: [],
    mounts: [
      { host_path: `${podDir}/etc-hosts`, container_path: '/etc/hosts', readonly: false },
      { host_path: `${podDir}/containers/app/aab2976b`, container_path: '/dev/termination-log' },
    ],
    labels: { ...sandbox.labels, 'io.kubernetes.container.name': 'app', 'io.kubernetes.container.type': 'REGULAR' },
    annotations: {
      'io.kubernetes.container.hash': 'c6ed02a7',
      'io.kubernetes.container.restartCount': '0',
      'io.kubernetes.container.terminationMessagePath': '/dev/termination-log',
      'io.kubernetes.container.terminationMessagePolicy': 'File',
      'io.kubernetes.pod.terminationGracePeriod': '30',
    },
    log_path: 'app/0.log',
    stdin: false,
    stdin_once: false,
    tty: false,
    linux: {
      resources: { cpu_shares: 2, cpu_period: 100_000, cpu_quota: 0, oom_score_adj: 1000 },
      security_context: {
        privileged: false,
        readonly_rootfs: false,
        namespace_options: { network: 'POD', pid: 'CONTAINER', ipc: 'POD' },
        supplemental_groups: [],
        no_new_privs: false,
        masked_paths: MASKED_PATHS,
        readonly_paths: READONLY_PATHS,
        seccomp: { profile_type: 'Unconfined' },
      },
    },
  };
}

/** In the order a pod start makes them, then a pod's runtime read, then an exec probe. */
function hotMethods(logRoot: string, round: number): HotMethod[] {
  return [
    { name: 'ImageStatus', call: (c) => c.imageStatus({ image: { image: IMAGE }, verbose: false }) },
    {
      name: 'RunPodSandbox',
      call: async (c, objects, i) => {
        const config = sandboxConfig(logRoot, round, i);
        const reply = await c.runPodSandbox({ config, runtime_handler: '' });
        objects.sandboxIds[i] = reply.pod_sandbox_id;
        objects.sandboxConfigs[i] = config;
      },
    },
    { name: 'PodSandboxStatus', call: (c, o, i) => c.podSandboxStatus({ pod_sandbox_id: o.sandboxIds[i], verbose: false }) },
    {
      name: 'CreateContainer',
      call: async (c, o, i) => {
        const config = containerConfig(o.sandboxConfigs[i], o.imageRef);
        o.containerIds[i] = (await c.createContainer({ pod_sandbox_id: o.sandboxIds[i], config, sandbox_config: o.sandboxConfigs[i] })).container_id;
      },
    },
    { name: 'StartContainer', call: (c, o, i) => c.startContainer({ container_id: o.containerIds[i] }) },
    { name: 'ContainerStatus', call: (c, o, i) => c.containerStatus({ container_id: o.containerIds[i], verbose: false }) },
    { name: 'ListPodSandbox', call: (c, o, i) => c.listPodSandbox({ filter: { label_selector: { 'io.kubernetes.pod.uid': uidOf(o, i) } } }) },
    { name: 'ListContainers', call: (c, o, i) => c.listContainers({ filter: { label_selector: { 'io.kubernetes.pod.uid': uidOf(o, i) } } }) },
    { name: 'ExecSync', call: (c, o, i) => c.execSync({ container_id: o.containerIds[i], cmd: ['true'], timeout: 1 }) },
  ];
}

function uidOf(objects: RoundObjects, index: number): string {
  return objects.sandboxConfigs[index].metadata!.uid!;
}

/** Calls `call(0 … count-1)` with `concurrency` in flight; resolves when all are done. */
async function drive(count: number, concurrency: number, call: (index: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < count) await call(next++);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, lane));
}

interface MethodFigure {
  cpuMicrosPerCall: number;
  wallMicrosPerCall: number;
}

/** One round: the warm-up's objects are separate, so the measured calls start from the same state in every round. */
async function runRound(client: CriClient, imageRef: string, logRoot: string, round: number, concurrency: number): Promise<Map<string, MethodFigure>> {
  const figures = new Map<string, MethodFigure>();
  const warm: RoundObjects = { imageRef, sandboxIds: [], sandboxConfigs: [], containerIds: [] };
  const measured: RoundObjects = { imageRef, sandboxIds: [], sandboxConfigs: [], containerIds: [] };
  for (const method of hotMethods(logRoot, round * 2)) await drive(WARMUP_CALLS, concurrency, (i) => method.call(client, warm, i));
  for (const method of hotMethods(logRoot, round * 2 + 1)) {
    const cpuBefore = process.cpuUsage();
    const wallBefore = performance.now();
    await drive(callsPerMethod, concurrency, (i) => method.call(client, measured, i));
    const cpu = process.cpuUsage(cpuBefore);
    const wallMicros = (performance.now() - wallBefore) * 1000;
    figures.set(method.name, { cpuMicrosPerCall: (cpu.user + cpu.system) / callsPerMethod, wallMicrosPerCall: wallMicros / callsPerMethod });
  }
  await removeAll(client, [warm, measured]);
  return figures;
}

/** The sim keeps what a round made; removing it keeps every round's lists as short as the first's. */
async function removeAll(client: CriClient, sets: RoundObjects[]): Promise<void> {
  for (const objects of sets) {
    await drive(objects.sandboxIds.length, 16, (i) => client.removePodSandbox({ pod_sandbox_id: objects.sandboxIds[i] }));
  }
}

async function startSim(socketPath: string): Promise<ChildProcess> {
  const sim = spawn(process.execPath, [SIM_CLI, '--socket', socketPath, '--profile', 'instant', '--log-level', 'warn'], { stdio: 'inherit' });
  const probe = new CriClient(socketPath, { timeoutMs: 1_000 });
  const deadline = Date.now() + SIM_START_TIMEOUT_MS;
  try {
    for (;;) {
      try {
        await probe.version();
        return sim;
      } catch (err) {
        if (Date.now() > deadline) throw err;
        await sleep(SIM_POLL_PERIOD_MS);
      }
    }
  } finally {
    probe.close();
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function printTable(concurrency: number, byRound: Map<string, MethodFigure>[]): void {
  console.log(`\nconcurrency ${concurrency}: ${callsPerMethod} calls per method, ${rounds} rounds (median [min–max])`);
  console.log(`${'method'.padEnd(18)} ${'CPU µs/call'.padStart(24)} ${'wall µs/call'.padStart(14)}`);
  let total = 0;
  for (const name of byRound[0].keys()) {
    const cpu = byRound.map((figures) => figures.get(name)!.cpuMicrosPerCall);
    const wall = byRound.map((figures) => figures.get(name)!.wallMicrosPerCall);
    total += median(cpu);
    const spread = `[${Math.min(...cpu).toFixed(0)}–${Math.max(...cpu).toFixed(0)}]`;
    console.log(`${name.padEnd(18)} ${median(cpu).toFixed(0).padStart(8)} ${spread.padStart(15)} ${median(wall).toFixed(0).padStart(14)}`);
  }
  console.log(`${'sum of medians'.padEnd(18)} ${total.toFixed(0).padStart(8)}`);
}

async function main(): Promise<void> {
  const workDir = mkdtempSync(join(tmpdir(), 'shardlet-cri-call-cost-'));
  const socketPath = join(workDir, 'sim.sock');
  const sim = await startSim(socketPath);
  const client = new CriClient(socketPath, { timeoutMs: CALL_TIMEOUT_MS });
  try {
    const { image_ref: imageRef } = await client.pullImage({ image: { image: IMAGE } });
    let roundId = 0;
    for (const concurrency of concurrencies) {
      const byRound: Map<string, MethodFigure>[] = [];
      for (let round = 0; round < rounds; round++) byRound.push(await runRound(client, imageRef, join(workDir, 'logs'), roundId++, concurrency));
      printTable(concurrency, byRound);
    }
  } finally {
    client.close();
    sim.kill('SIGTERM');
    rmSync(workDir, { recursive: true, force: true });
  }
}

await main();
