// What per-object Secret watches cost at density: a process running shardlet's
// PodApiDataProvider registers N pods that each mount a Secret of their own (N
// list/watches by name, as under the Node authorizer), then rests; measured from
// /proc as an operator would, against an idle process with no pods:
//
//   npm run build && node dist/bench/object-watch-cost.js [--pods 500] [--rest 120]
//
// Prints, per run: RSS, CPU over the rest window (% of one core), the process's
// open sockets, the watches the API server holds open, and the watch requests it
// received during the rest (reconnections), then the same as JSON. The test API
// server runs in this process; its cost is not the kubelet's.
import { fork, type ChildProcess } from 'node:child_process';
import { readdirSync, readlinkSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { startTestApiServer, type TestApiServer } from '../src/testapiserver/server.js';
import { benchSecretName, type ObjectWatchJob } from './object-watch-child.js';
import { processCpuSeconds, processMemory } from './proc-stats.js';

const CHILD = fileURLToPath(new URL('./object-watch-child.js', import.meta.url));
const NAMESPACE = 'bench';
const NODE = 'bench-node';
const SECRETS = { key: 'secrets', group: '', plural: 'secrets' };
const NAMESPACES = { key: 'namespaces', group: '', plural: 'namespaces' };
/** Time for the start-up work (TLS, first lists) to die down before the rest window opens. */
const SETTLE_MS = 10_000;
const READY_TIMEOUT_MS = 5 * 60_000;

const { values } = parseArgs({ options: { pods: { type: 'string', default: '500' }, rest: { type: 'string', default: '120' } } });
const pods = Number(values.pods);
const restMs = Number(values.rest) * 1000;

interface RunFigures {
  pods: number;
  registerMs: number;
  /** Pods answered null at first: their Secret was not listed within FIRST_LIST_WAIT_MS. */
  firstPassMissing: number;
  rssMiB: number;
  cpuPercentAtRest: number;
  sockets: number;
  serverOpenWatches: number;
  watchRequestsDuringRest: number;
}

/** File descriptors of the process that are sockets. */
function openSockets(pid: number): number {
  let sockets = 0;
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      if (readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith('socket:')) sockets++;
    } catch {
      // closed meanwhile
    }
  }
  return sockets;
}

function watchRequests(api: TestApiServer): number {
  return api.requestLog().filter((request) => request.verb === 'watch' && request.resource === 'secrets').length;
}

async function startChild(job: ObjectWatchJob): Promise<{ child: ChildProcess; registerMs: number; firstPassMissing: number }> {
  const child = fork(CHILD, [JSON.stringify(job)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const ready = await new Promise<{ registerMs: number; missing: number; firstPassMissing: number }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the child did not register ${job.pods} pods in ${READY_TIMEOUT_MS} ms`)), READY_TIMEOUT_MS);
    child.once('message', (message) => {
      clearTimeout(timer);
      resolve(message as { registerMs: number; missing: number; firstPassMissing: number });
    });
    child.once('exit', (code) => reject(new Error(`the child exited with ${code}`)));
  });
  if (ready.missing > 0) throw new Error(`${ready.missing} pods got no Secret`);
  return { child, registerMs: ready.registerMs, firstPassMissing: ready.firstPassMissing };
}

async function measure(api: TestApiServer, kubeconfig: string, podCount: number): Promise<RunFigures> {
  const { child, registerMs, firstPassMissing } = await startChild({ kubeconfig, namespace: NAMESPACE, pods: podCount });
  try {
    await sleep(SETTLE_MS);
    const pid = child.pid!;
    const cpuBefore = processCpuSeconds(pid);
    const watchesBefore = watchRequests(api);
    await sleep(restMs);
    const cpuSeconds = processCpuSeconds(pid) - cpuBefore;
    return {
      pods: podCount,
      registerMs: Math.round(registerMs),
      firstPassMissing: Math.max(firstPassMissing, 0),
      rssMiB: Math.round(processMemory(pid).rssMiB * 10) / 10,
      cpuPercentAtRest: Math.round((cpuSeconds / (restMs / 1000)) * 1000) / 10,
      sockets: openSockets(pid),
      serverOpenWatches: api.openWatches().filter((watch) => watch.resource === 'secrets').length,
      watchRequestsDuringRest: watchRequests(api) - watchesBefore,
    };
  } finally {
    child.kill('SIGKILL');
    await new Promise((resolve) => (child.exitCode !== null ? resolve(undefined) : child.once('exit', resolve)));
  }
}

async function main(): Promise<void> {
  const workDir = mkdtempSync(join(tmpdir(), 'shardlet-object-watch-cost-'));
  const api = await startTestApiServer();
  try {
    api.store.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } });
    for (let i = 0; i < pods; i++) {
      api.store.create(SECRETS, { apiVersion: 'v1', kind: 'Secret', metadata: { name: benchSecretName(i), namespace: NAMESPACE }, data: { k: Buffer.from(`v${i}`).toString('base64') } } as never);
    }
    const kubeconfig = await api.writeKubeconfig(join(workDir, 'node.kubeconfig'), { user: 'kubelet', nodeName: NODE });
    const runs: RunFigures[] = [];
    for (const podCount of [0, pods]) {
      console.log(`measuring ${podCount} pods (${restMs / 1000} s at rest) ...`);
      runs.push(await measure(api, kubeconfig, podCount));
    }
    console.table(runs);
    console.log(JSON.stringify({ restSeconds: restMs / 1000, runs }));
  } finally {
    await api.stop();
    rmSync(workDir, { recursive: true, force: true });
  }
}

await main();
