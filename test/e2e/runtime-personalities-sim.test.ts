// The scenarios that matter where runtimes differ, run against the simulated
// runtime under each personality (src/simruntime/personality.ts): containerd 1.6
// (no container events), containerd 2.x (events, exited instances in the sandbox
// stats), CRI-O with its default enable_pod_events = false (an empty event stream
// that ends at once, no pod-level stats figures, +00:00 log times, its PID
// namespace check) and CRI-O with enable_pod_events = true. A real shardlet
// process each time, read as an operator would: /pods, the log, the kubelet API.
//
// Where events flow, the periodic relist is an hour apart, so a crashed container
// can only be restarted through its exit event; where they do not, the relist runs
// at its normal period and must carry the restart alone.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CriClient } from '../../src/shared/cri/client.js';
import type { Summary } from '../../src/main/stats/summary-types.js';
import type { Pod } from '../../src/shared/types.js';
import type { PersonalityName } from '../../src/simruntime/personality.js';
import { startSimRuntime, type SimRuntime } from '../../src/simruntime/server.js';
import { findPod, isRunningAndReady, kubeletApiGet, startKubelet, waitUntil, type KubeletProcess } from '../helpers/kubelet-process.js';
import { manifest } from './scenarios.js';

const IMAGE = 'busybox:1.35';
const TIMEOUT_MS = 60_000;
const PINO_INFO = 30;
const PINO_WARN = 40;

interface PersonalityRun {
  title: string;
  personality: PersonalityName;
  podEvents?: boolean;
  /** Whether the runtime streams container events, so the PLEG relists on exits. */
  events: boolean;
}

const RUNS: PersonalityRun[] = [
  { title: 'containerd 1.6', personality: 'containerd-1.6', events: false },
  { title: 'containerd 2.x', personality: 'containerd-2', events: true },
  { title: 'CRI-O, enable_pod_events = false (its default)', personality: 'crio', events: false },
  { title: 'CRI-O, enable_pod_events = true', personality: 'crio', podEvents: true, events: true },
];

for (const run of RUNS) {
  describe(`shardlet on the simulated runtime as ${run.title}`, () => {
    let workDir: string;
    let sim: SimRuntime;
    let kubelet: KubeletProcess;
    let cri: CriClient;
    const write = (name: string, spec: Pod['spec']) => writeFileSync(join(kubelet.manifestDir, `${name}.yaml`), manifest(name, spec));
    const waitForPod = (name: string, check: (pod: Pod | undefined) => boolean, what: string) =>
      waitUntil(async () => {
        const pod = findPod(await kubelet.pods(), name);
        return check(pod) ? (pod ?? true) : false;
      }, TIMEOUT_MS, `${name}: ${what}`);

    before(async () => {
      workDir = mkdtempSync(join(tmpdir(), 'shardlet-personality-'));
      sim = await startSimRuntime({
        socketPath: join(workDir, 'sim.sock'),
        latency: { scale: 0 },
        personality: run.personality,
        ...(run.podEvents === undefined ? {} : { podEvents: run.podEvents }),
      });
      kubelet = await startKubelet({
        runtimeEndpoint: sim.endpoint,
        workers: 2,
        workDir,
        // No pod cgroups: the sim's processes are not in them, so CRI-O's missing pod
        // figures come from the sum of the containers' (a real CRI-O's pod cgroup holds them).
        extraArgs: ['--sync-frequency=10m', '--cgroups-per-qos=false', '--enforce-node-allocatable=', ...(run.events ? ['--pleg-relist-period=1h'] : [])],
      });
      cri = new CriClient(sim.endpoint, { timeoutMs: 10_000 });
      write('web', {
        terminationGracePeriodSeconds: 2,
        containers: [{ name: 'main', image: IMAGE, command: ['sh', '-c', 'echo hello; while true; do echo tick; sleep 1; done'] }],
      });
      // A shared PID namespace: CRI-O refuses a container whose PID mode its sandbox does not share.
      write('shared', {
        terminationGracePeriodSeconds: 2,
        shareProcessNamespace: true,
        containers: [{ name: 'main', image: IMAGE, command: ['sleep', '3600'] }],
      });
      write('crash', { restartPolicy: 'Always', containers: [{ name: 'fails', image: IMAGE, command: ['sh', '-c', 'sleep 1; exit 1'] }] });
    });

    after(async () => {
      for (const name of ['web', 'shared', 'crash']) rmSync(join(kubelet.manifestDir, `${name}.yaml`), { force: true });
      await waitUntil(async () => (await kubelet.pods()).length === 0, TIMEOUT_MS, 'pods removed').catch(() => undefined);
      await kubelet?.stop();
      cri?.close();
      await sim?.close();
      rmSync(workDir, { recursive: true, force: true });
    });

    test('static pods start, a shared PID namespace included', async () => {
      await waitForPod('web', isRunningAndReady, 'Running');
      await waitForPod('shared', isRunningAndReady, 'Running');
    });

    test(`container events ${run.events ? 'in use' : 'not in use'}: said once at info, no warning about the event stream`, async () => {
      const said = await waitUntil(
        async () => {
          const lines = kubelet.logs.filter((line) => typeof line.containerEvents === 'boolean');
          return lines.length > 0 ? lines : undefined;
        },
        TIMEOUT_MS,
        'a line saying whether container events are in use',
      );
      assert.equal(said.length, 1, JSON.stringify(said));
      assert.equal(said[0].level, PINO_INFO);
      assert.equal(said[0].containerEvents, run.events);
      const streamWarnings = kubelet.logs.filter((line) => Number(line.level) >= PINO_WARN && /event stream/i.test(String(line.msg)));
      assert.deepEqual(streamWarnings, []);
    });

    test(`a crashed container is restarted through the PLEG (${run.events ? 'its exit event, the relist an hour apart' : 'the periodic relist'})`, async () => {
      const pod = (await waitForPod('crash', (candidate) => (candidate?.status?.containerStatuses?.[0]?.restartCount ?? 0) >= 1, 'restarted')) as Pod;
      const status = pod.status!.containerStatuses![0];
      assert.equal(status.lastState?.terminated?.exitCode, 1);
      assert.equal(status.lastState?.terminated?.reason, 'Error');
    });

    // containerd 2.x lists a container's exited instances (no figures) beside the
    // running one, CRI-O gives no pod-level CPU or memory: whatever the runtime, a
    // container is one entry and one series, and a pod has its CPU and memory.
    test('/stats/summary and /metrics/resource: one entry per container, pod CPU and memory', async () => {
      await waitForPod('crash', (candidate) => (candidate?.status?.containerStatuses?.[0]?.restartCount ?? 0) >= 1, 'restarted');
      await waitForPod('web', isRunningAndReady, 'Running');
      const summary = await waitUntil(
        async () => {
          const reply = await kubeletApiGet(kubelet, '/stats/summary');
          assert.equal(reply.status, 200, reply.body);
          const parsed = JSON.parse(reply.body) as Summary;
          const web = parsed.pods.find((pod) => pod.podRef.name === 'web-test-node');
          return web?.containers.some((container) => container.name === 'main') && web.cpu?.usageCoreNanoSeconds !== undefined ? parsed : undefined;
        },
        TIMEOUT_MS,
        'the web pod in /stats/summary with its CPU',
      );
      assert.ok(summary.node.nodeName);
      for (const pod of summary.pods) {
        const names = pod.containers.map((container) => container.name);
        assert.deepEqual(names, [...new Set(names)], `${pod.podRef.name}: one entry per container`);
      }
      const web = summary.pods.find((pod) => pod.podRef.name === 'web-test-node')!;
      assert.ok((web.memory?.workingSetBytes ?? 0) > 0, `web's pod memory: ${JSON.stringify(web.memory)}`);
      const resource = await kubeletApiGet(kubelet, '/metrics/resource');
      assert.equal(resource.status, 200, resource.body);
      assert.match(resource.body, /^container_start_time_seconds\{container="main",namespace="default",pod="web-test-node"\} /m);
      assert.match(resource.body, /^container_memory_working_set_bytes\{container="main",namespace="default",pod="web-test-node"\} /m);
      assert.doesNotMatch(resource.body, /^scrape_error 1/m);
      const startSeries = resource.body.split('\n').filter((line) => line.startsWith('container_start_time_seconds{')).map((line) => line.split(' ')[0]);
      assert.deepEqual(startSeries, [...new Set(startSeries)], 'no container_start_time_seconds series twice');
      assert.match(resource.body, /^pod_cpu_usage_seconds_total\{namespace="default",pod="web-test-node"\} /m);
      assert.match(resource.body, /^pod_memory_working_set_bytes\{namespace="default",pod="web-test-node"\} /m);
    });

    test('container logs through the kubelet API: timestamps as upstream prints them (Z), sinceTime honoured', async () => {
      const path = '/containerLogs/default/web-test-node/main';
      let last: { status: number; body: string } | undefined;
      await waitUntil(async () => (last = await kubeletApiGet(kubelet, path)).body.includes('tick\n'), TIMEOUT_MS, 'a tick in the log').catch((err: Error) => {
        throw new Error(`${err.message}; the last reply: ${last?.status} ${JSON.stringify(last?.body.slice(-500))}`);
      });
      const plain = await kubeletApiGet(kubelet, path);
      assert.equal(plain.status, 200);
      assert.match(plain.body, /^hello\n(tick\n)+$/);
      const stamped = (await kubeletApiGet(kubelet, `${path}?timestamps=true`)).body.split('\n').filter(Boolean);
      for (const line of stamped) assert.match(line, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{9}Z (hello|tick)$/);
      // sinceTime compares instants, whatever offset the runtime wrote.
      const helloAt = Date.parse(stamped[0].split(' ')[0]);
      assert.ok(Math.abs(helloAt - Date.now()) < 5 * 60_000, `the first record's time ${stamped[0]} is now, not hours off`);
      const future = new Date(Date.now() + 60_000).toISOString().replace(/\.\d+Z$/, 'Z');
      assert.equal((await kubeletApiGet(kubelet, `${path}?sinceTime=${future}`)).body, '');
      const past = new Date(helloAt - 60_000).toISOString().replace(/\.\d+Z$/, 'Z');
      assert.match((await kubeletApiGet(kubelet, `${path}?sinceTime=${past}`)).body, /^hello\n/);
    });

    test('removing the manifest stops the pod and removes it from the runtime', async () => {
      const pod = (await waitForPod('web', isRunningAndReady, 'Running')) as Pod;
      const uid = pod.metadata!.uid!;
      rmSync(join(kubelet.manifestDir, 'web.yaml'));
      await waitForPod('web', (candidate) => candidate === undefined, 'gone from /pods');
      await waitUntil(
        async () => (await cri.listPodSandbox({ filter: { label_selector: { 'io.kubernetes.pod.uid': uid } } })).items.length === 0,
        TIMEOUT_MS,
        'sandbox removed from the runtime',
      );
      assert.equal((await cri.listContainers({ filter: { label_selector: { 'io.kubernetes.pod.uid': uid } } })).containers.length, 0);
    });
  });
}
