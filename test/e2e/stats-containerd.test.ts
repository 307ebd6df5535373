// /stats/summary, /metrics/resource and /metrics/cadvisor against real containerd 1.6 (brought up by
// scripts/containerd/setup.sh; needs root): the pod's figures come from
// ListPodSandboxStats, which containerd 1.6.20 implements (the ListContainerStats
// fallback for runtimes without it is covered by the summary mapping's unit tests). A busybox pod that allocates memory must show CPU
// time and a non-zero working set. Run it under `flock /tmp/shardlet-containerd.lock`.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { pino } from 'pino';
import { Kubelet } from '../../src/main/kubelet.js';
import { registerMetricsRoutes } from '../../src/main/metrics/metrics-routes.js';
import { parseFlags } from '../../src/main/options/flags.js';
import { mergeFlags } from '../../src/main/options/kubelet-config.js';
import { KubeletRoutes } from '../../src/main/server/kubelet-routes.js';
import type { PodStats, Summary } from '../../src/main/stats/summary-types.js';
import { CriClient } from '../../src/shared/cri/client.js';
import { ensureContainerd } from '../../src/tools/containerd-env.js';
import { ensurePrometheus, promtoolCheckMetrics } from '../../src/tools/prometheus-env.js';
import { waitUntil } from '../helpers/kubelet-process.js';
import { serveRoutes, type RouteServer } from '../../src/tools/route-server.js';
import { manifest } from './scenarios.js';

const NODE = 'stats-node';
const POD_TIMEOUT_MS = 120_000;

let kubelet: Kubelet;
let server: RouteServer;
let cri: CriClient;
let manifestDir: string;
let workDir: string;
let podUid = '';

async function summary(): Promise<Summary> {
  const res = await fetch(`${server.url}/stats/summary`);
  assert.equal(res.status, 200, await res.clone().text());
  return (await res.json()) as Summary;
}

function busyboxPod(stats: Summary): PodStats | undefined {
  return stats.pods.find((pod) => pod.podRef.name === `stats-${NODE}`);
}

before(async () => {
  const containerd = ensureContainerd();
  workDir = mkdtempSync(join(tmpdir(), 'shardlet-stats-containerd-'));
  manifestDir = join(workDir, 'manifests');
  mkdirSync(manifestDir);
  const flags = parseFlags([
    `--container-runtime-endpoint=${containerd.endpoint}`,
    `--pod-manifest-path=${manifestDir}`,
    `--root-dir=${join(workDir, 'root')}`,
    '--read-only-port=0',
    // The routes are served by the test's own adapter: no :10250 server, no fixed healthz port.
    '--enable-server=false',
    '--healthz-port=0',
    '--workers=2',
    `--hostname-override=${NODE}`,
    '--file-check-frequency=1s',
  ]);
  const logger = pino({ level: 'warn' });
  kubelet = new Kubelet(mergeFlags(undefined, flags), logger);
  await kubelet.start();
  const routes = new KubeletRoutes();
  registerMetricsRoutes(routes, { metrics: kubelet.metrics, summary: kubelet.summary, logger });
  server = await serveRoutes(routes);
  cri = new CriClient(containerd.endpoint, { timeoutMs: 30_000 });
  // busybox keeps about 8 MiB of a tmpfs-free string in its shell's memory, and burns a little CPU first.
  writeFileSync(
    join(manifestDir, 'stats.yaml'),
    manifest('stats', {
      containers: [
        {
          name: 'app',
          image: containerd.busyboxImage,
          command: ['sh', '-c', 'i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done; x=$(head -c 8000000 /dev/zero | tr "\\0" a); sleep 3600'],
        },
      ],
    }),
  );
});

after(async () => {
  rmSync(join(manifestDir, 'stats.yaml'), { force: true });
  // Let shardlet stop and remove what it started, so containerd is left clean for the next test.
  if (podUid) {
    await waitUntil(
      async () => (await cri.listPodSandbox({ filter: { label_selector: { 'io.kubernetes.pod.uid': podUid } } })).items.length === 0,
      POD_TIMEOUT_MS,
      'the pod’s sandbox removed',
    ).catch(() => undefined);
  }
  await server?.close();
  await kubelet?.stop();
  cri?.close();
  rmSync(workDir, { recursive: true, force: true });
});

test('/stats/summary has the busybox pod’s CPU and memory on containerd 1.6', async () => {
  const pod = await waitUntil(
    async () => {
      const found = busyboxPod(await summary());
      const container = found?.containers.find((c) => c.name === 'app');
      // The start time comes from the pod's status, which the sync reports after the runtime already shows the container.
      return (container?.memory?.workingSetBytes ?? 0) > 0 && (container?.cpu?.usageCoreNanoSeconds ?? 0) > 0 && found?.startTime ? found : undefined;
    },
    POD_TIMEOUT_MS,
    'the busybox pod in /stats/summary with CPU, a working set and its start time',
  );
  podUid = pod.podRef.uid;
  assert.equal(pod.podRef.namespace, 'default');
  assert.ok(pod.startTime, 'the pod’s start time comes from its status');
  assert.ok((pod.cpu?.usageCoreNanoSeconds ?? 0) > 0);
  assert.ok((pod.memory?.workingSetBytes ?? 0) > 0);
  const app = pod.containers.find((c) => c.name === 'app')!;
  assert.ok(app.startTime);
  assert.ok((app.rootfs?.capacityBytes ?? 0) > 0);
  const node = (await summary()).node;
  assert.ok((node.runtime?.imageFs?.usedBytes ?? 0) > 0, 'containerd’s ImageFsInfo');
  assert.ok((node.memory?.workingSetBytes ?? 0) > 0);
});

test('/metrics/resource on containerd passes promtool and has the container’s working set', async () => {
  const { promtool } = ensurePrometheus();
  const text = await (await fetch(`${server.url}/metrics/resource`)).text();
  const check = promtoolCheckMetrics(promtool, text);
  assert.ok(check.ok, check.output);
  const line = text.split('\n').find((l) => l.startsWith(`container_memory_working_set_bytes{container="app",namespace="default",pod="stats-${NODE}"}`));
  assert.ok(line, text);
  assert.ok(Number(line.split(' ')[1]) > 0);
  assert.match(text, /^resource_scrape_error 0$/m);
});

test('/metrics/cadvisor on containerd passes promtool, with the container by its ID and the pod cgroup’s own figures', async () => {
  const { promtool } = ensurePrometheus();
  const text = await (await fetch(`${server.url}/metrics/cadvisor`)).text();
  const check = promtoolCheckMetrics(promtool, text);
  assert.ok(check.ok, check.output);
  const lines = text.split('\n');
  const container = lines.find((l) => l.startsWith('container_memory_working_set_bytes{container="app",') && l.includes(`pod="stats-${NODE}"`));
  assert.ok(container, text);
  assert.match(container, /name="[0-9a-f]{64}",namespace="default"/, 'containerd’s container ID names it');
  assert.ok(Number(container.split('} ')[1]!.split(' ')[0]) > 0);
  const podCgroup = lines.find((l) => l.startsWith('container_cpu_usage_seconds_total{container="",cpu="total",') && l.includes(`pod="stats-${NODE}"`));
  assert.ok(podCgroup, 'the pod cgroup’s CPU');
  assert.match(podCgroup, new RegExp(`id="[^"]*pod${podUid.replaceAll('-', '[-_]')}[^"]*"`), 'the pod cgroup’s path is its id');
  assert.ok(
    lines.some((l) => l.startsWith('container_memory_cache{container="",') && l.includes(`pod="stats-${NODE}"`)),
    'the page cache read from the pod cgroup the kubelet made',
  );
  assert.match(text, /^container_scrape_error 0$/m);
});
