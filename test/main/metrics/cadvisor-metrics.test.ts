// /metrics/cadvisor from the figures the summary provider gathers: a series set per
// running container and per pod cgroup with upstream's labels, cAdvisor's names,
// HELP texts and types, specs as the kubelet sets the cgroups, and the text passes
// `promtool check metrics` where promtool is installed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cadvisorMetricsText } from '../../../src/main/metrics/cadvisor-metrics.js';
import { cadvisorView } from '../../../src/main/stats/cadvisor-view.js';
import type { CadvisorFigures } from '../../../src/main/stats/summary-provider.js';
import type * as cri from '../../../src/shared/cri/types.js';
import type { Pod } from '../../../src/shared/types.js';
import { ensurePrometheus, promtoolCheckMetrics } from '../../../src/tools/prometheus-env.js';

const UID = '11111111-2222-3333-4444-555555555555';
const AT = '2026-11-24T10:00:00Z';
const AT_MS = Date.parse(AT);
const CREATED_NS = Date.parse('2026-11-24T09:00:05Z') * 1e6;

/** Guaranteed: 500m and 64Mi, requests defaulted from limits. */
const POD: Pod = {
  metadata: { name: 'web', namespace: 'default', uid: UID },
  spec: { containers: [{ name: 'app', image: 'busybox:1.35', resources: { limits: { cpu: '500m', memory: '64Mi' } } }] },
};

function running(id: string, createdNs: number): cri.ContainerLean {
  return {
    id,
    pod_sandbox_id: 'sb1',
    image_ref: 'sha256:abc',
    state: 'CONTAINER_RUNNING',
    created_at: createdNs,
    labels: { 'io.kubernetes.pod.uid': UID, 'io.kubernetes.container.name': 'app' },
    annotations: {},
    metadata: { name: 'app', attempt: 0 },
    image: { image: 'sha256:abc' },
  } as unknown as cri.ContainerLean;
}

function figures(podCgroups = true): CadvisorFigures {
  return {
    pods: [
      {
        podRef: { name: 'web', namespace: 'default', uid: UID },
        startTime: '2026-11-24T09:00:00Z',
        containers: [
          {
            name: 'app',
            startTime: '2026-11-24T09:00:06Z',
            cpu: { time: AT, usageCoreNanoSeconds: 500_000_000 },
            memory: { time: AT, usageBytes: 8192, workingSetBytes: 4096, rssBytes: 2048, pageFaults: 7, majorPageFaults: 1 },
          },
        ],
        cpu: { time: AT, usageCoreNanoSeconds: 600_000_000 },
        memory: { time: AT, usageBytes: 9000, workingSetBytes: 5000 },
      },
    ],
    // An older instance of the same container still listed: the newest created is the one reported.
    running: [running('old', CREATED_NS - 1e9), running('c1', CREATED_NS)],
    specs: new Map([[UID, POD]]),
    podCgroups: podCgroups ? { layout: { version: 'v2', mounts: { unified: '/sys/fs/cgroup' }, description: 'v2' }, driver: 'cgroupfs', root: [] } : undefined,
    podCgroupSamples: new Map([[UID, { timestampNs: AT_MS * 1e6, cacheBytes: 300, cfs: { periods: 40, throttledPeriods: 3, throttledNanoSeconds: 1.5e9 } }]]),
  } as CadvisorFigures;
}

test('a container and its pod cgroup, with upstream’s labels: container name, cgroup id, image, container ID, pod and namespace', () => {
  const [container, pod] = cadvisorView(figures());
  assert.deepEqual(container!.labels, { container: 'app', id: `/kubepods/pod${UID}/c1`, image: 'busybox:1.35', name: 'c1', namespace: 'default', pod: 'web' });
  assert.equal(container!.startTimeSeconds, CREATED_NS / 1e9, 'the start time is when the running instance was created');
  assert.deepEqual(container!.spec, { cpuShares: 512, cpuPeriodUs: 100_000, cpuQuotaUs: 50_000, memoryLimitBytes: 64 * 1024 * 1024 });
  assert.deepEqual(pod!.labels, { container: '', id: `/kubepods/pod${UID}`, image: '', name: '', namespace: 'default', pod: 'web' });
  assert.deepEqual(pod!.spec, { cpuShares: 512, cpuPeriodUs: 100_000, cpuQuotaUs: 50_000, memoryLimitBytes: 64 * 1024 * 1024 });
  assert.equal(pod!.memory?.cacheBytes, 300);
  assert.equal(cadvisorView(figures(false))[1]!.labels.id, `/pod${UID}`, 'no pod cgroups: the pod is named by its UID');
});

test('the text has cAdvisor’s names, HELP texts and types, each figure with its own time', () => {
  const now = AT_MS + 5000;
  const text = cadvisorMetricsText(cadvisorView(figures()), now);
  const base = `container="app",id="/kubepods/pod${UID}/c1",image="busybox:1.35",name="c1",namespace="default",pod="web"`;
  const podBase = `container="",id="/kubepods/pod${UID}",image="",name="",namespace="default",pod="web"`;
  assert.match(text, /^# HELP container_cpu_usage_seconds_total Cumulative cpu time consumed in seconds\.$/m);
  assert.match(text, /^# TYPE container_cpu_usage_seconds_total counter$/m);
  assert.match(text, /^# TYPE container_memory_working_set_bytes gauge$/m);
  const lines = new Set(text.split('\n'));
  for (const line of [
    `container_cpu_usage_seconds_total{container="app",cpu="total",id="/kubepods/pod${UID}/c1",image="busybox:1.35",name="c1",namespace="default",pod="web"} 0.5 ${AT_MS}`,
    `container_memory_working_set_bytes{${base}} 4096 ${AT_MS}`,
    `container_memory_usage_bytes{${base}} 8192 ${AT_MS}`,
    `container_memory_rss{${base}} 2048 ${AT_MS}`,
    `container_memory_failures_total{container="app",failure_type="pgmajfault",id="/kubepods/pod${UID}/c1",image="busybox:1.35",name="c1",namespace="default",pod="web",scope="hierarchy"} 1 ${AT_MS}`,
    `container_spec_cpu_shares{${base}} 512`,
    `container_spec_cpu_quota{${base}} 50000`,
    `container_spec_cpu_period{${base}} 100000`,
    `container_spec_memory_limit_bytes{${base}} 67108864`,
    `container_start_time_seconds{${base}} ${CREATED_NS / 1e9}`,
    `container_last_seen{${base}} ${now / 1000} ${now}`,
    `container_cpu_usage_seconds_total{container="",cpu="total",id="/kubepods/pod${UID}",image="",name="",namespace="default",pod="web"} 0.6 ${AT_MS}`,
    `container_memory_cache{${podBase}} 300 ${AT_MS}`,
    `container_cpu_cfs_throttled_seconds_total{${podBase}} 1.5 ${AT_MS}`,
    `container_cpu_cfs_throttled_periods_total{${podBase}} 3 ${AT_MS}`,
    `container_scrape_error 0`,
  ]) {
    assert.ok(lines.has(line), `missing: ${line}`);
  }
  assert.match(text, /^machine_cpu_cores\{boot_id="[^"]*",machine_id="[^"]*",system_uuid="[^"]*"\} [1-9]\d*$/m);
  assert.match(text, /^machine_memory_bytes\{.*\} [1-9]\d*$/m);
});

test('a BestEffort container has the minimum shares, no quota series and no memory limit', () => {
  const f = figures();
  (f.specs as Map<string, Pod>).set(UID, { ...POD, spec: { containers: [{ name: 'app', image: 'busybox:1.35' }] } });
  const [container] = cadvisorView(f);
  assert.deepEqual(container!.spec, { cpuShares: 2, cpuPeriodUs: 100_000, cpuQuotaUs: 0, memoryLimitBytes: 0 });
  const text = cadvisorMetricsText(cadvisorView(f));
  assert.doesNotMatch(text, /^container_spec_cpu_quota\{/m);
  assert.doesNotMatch(text, /^container_cpu_cfs_/m, 'no quota, no CFS series (cAdvisor’s condition)');
});

test('without figures (the runtime failed) container_scrape_error is 1 and the machine series remain', () => {
  const text = cadvisorMetricsText(undefined);
  assert.match(text, /^container_scrape_error 1$/m);
  assert.match(text, /^machine_cpu_cores\{/m);
});

test('the text passes promtool check metrics', () => {
  // promtool from the project's own set-up (scripts/prometheus/setup.sh), as the metrics e2e tests get it.
  const check = promtoolCheckMetrics(ensurePrometheus().promtool, cadvisorMetricsText(cadvisorView(figures())));
  assert.deepEqual(check, { ok: true, output: '' });
});
