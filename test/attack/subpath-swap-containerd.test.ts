// Attack: the subPath swap race (the CVE-2021-25741 class) on real containerd. One
// container of a pod loops swapping a directory `d` of its emptyDir for a symlink
// `d -> /`; other containers of the pod mount `subPath: d` and restart again and
// again. A kubelet that checks the subPath and then hands the runtime a path name
// inside the volume loses the race now and then: containerd resolves the name when
// it builds the container, finds the symlink, and the container gets the host's /.
// Each victim reports from inside, in its own log, whether it sees a marker file that
// only the host's / has. Needs root (scripts/containerd/setup.sh); run it under the
// containerd lock.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { stringify } from 'yaml';
import { CriClient } from '../../src/shared/cri/client.js';
import type { Container } from '../../src/shared/types.js';
import { ensureContainerd, type ProjectContainerd } from '../../src/tools/containerd-env.js';
import { mountsUnder, unmount } from '../../src/workers/volumes/mountinfo.js';
import { manifest } from '../e2e/scenarios.js';
import { removeRuntimePod } from '../e2e/stranded-pods.js';
import { startKubelet, waitUntil, type KubeletProcess } from '../helpers/kubelet-process.js';

const NODE = 'subpath-attack';
const POD = 'swap';
/** Victim containers: each gets its first two starts at once, then CrashLoopBackOff's 10 s, 20 s, 40 s... */
const VICTIMS = 8;
/** Victim starts to see before judging: the unfixed kubelet gave 15 of 33 starts the host's / here (and the first in another run). */
const VICTIM_STARTS = 32;
const WAIT_MS = 300_000;
const SEEN_HOST = 'HOST-ROOT-SEEN';
const SEEN_VOLUME = 'volume-only';
const POLL_MS = 1_000;

let containerd: ProjectContainerd;
let cri: CriClient;
let kubelet: KubeletProcess;
let workDir: string;
let podLogsDir: string;
let markerDir: string;
let podUid: string | undefined;

before(async () => {
  containerd = ensureContainerd();
  cri = new CriClient(containerd.endpoint, { timeoutMs: 30_000 });
  workDir = mkdtempSync(join(tmpdir(), 'shardlet-attack-subpath-'));
  podLogsDir = join(workDir, 'pod-logs');
  // On the host's filesystem, outside any volume: only a container that has the host's / sees it.
  markerDir = mkdtempSync(join(tmpdir(), 'shardlet-attack-host-'));
  writeFileSync(join(markerDir, 'host-marker'), 'host\n');
  const config = join(workDir, 'kubelet.yaml');
  writeFileSync(config, stringify({
    apiVersion: 'kubelet.config.k8s.io/v1beta1',
    kind: 'KubeletConfiguration',
    podLogsDir,
    // Standalone: no API server to check tokens with.
    authentication: { webhook: { enabled: false } },
    authorization: { mode: 'AlwaysAllow' },
  }));
  kubelet = await startKubelet({ runtimeEndpoint: containerd.endpoint, workers: 1, nodeName: NODE, workDir: join(workDir, 'node'), extraArgs: [`--config=${config}`] });
});

after(async () => {
  if (kubelet) {
    rmSync(join(kubelet.manifestDir, `${POD}.yaml`), { force: true });
    await waitUntil(async () => (await kubelet.pods()).length === 0, 90_000, 'pod removed').catch(() => undefined);
    await kubelet.stop();
  }
  // Nothing of this test stays in the shared containerd, or mounted on the host.
  if (podUid) await removeRuntimePod(cri, podUid).catch(() => undefined);
  cri?.close();
  if (workDir) {
    for (const entry of await mountsUnder(workDir)) await unmount(entry.mountPoint).catch(() => undefined);
    if ((await mountsUnder(workDir)).length === 0) rmSync(workDir, { recursive: true, force: true });
  }
  if (markerDir) rmSync(markerDir, { recursive: true, force: true });
});

function attackPod(image: string): string {
  const swapper: Container = {
    name: 'swapper',
    image,
    // A directory for 10-110 ms, then a symlink to the host's / for up to 100 ms, at random: the kubelet's check
    // finds the directory often enough, and the runtime, a few milliseconds later, may find the symlink. Each
    // directory is moved aside rather than deleted (a bind mount of a deleted directory fails), and kept a while,
    // so that a victim given the directory can start.
    command: [
      'sh',
      '-c',
      'cd /vol && rm -rf d old-* && i=0; while :; do i=$((i + 1)); mkdir d; usleep $((RANDOM % 100000 + 10000)); ' +
        'mv d old-$i; ln -s / d; usleep $((RANDOM % 100000)); rm d; rm -rf old-$((i - 100)); done',
    ],
    volumeMounts: [{ name: 'vol', mountPath: '/vol' }],
    resources: { limits: { cpu: '500m' } },
  };
  const marker = join(markerDir, 'host-marker');
  const victims: Container[] = Array.from({ length: VICTIMS }, (_, index) => ({
    name: `victim-${index}`,
    image,
    command: ['sh', '-c', `if [ -e /mnt${marker} ]; then echo ${SEEN_HOST}; else echo ${SEEN_VOLUME}; fi`],
    // Read-only: an unfixed kubelet gives this container the host's /.
    volumeMounts: [{ name: 'vol', mountPath: '/mnt', subPath: 'd', readOnly: true }],
  }));
  return manifest(POD, { terminationGracePeriodSeconds: 2, restartPolicy: 'Always', containers: [swapper, ...victims], volumes: [{ name: 'vol', emptyDir: {} }] });
}

/** What every victim instance printed, one entry per start (containerd's log files, <restart>.log, stay after their container is removed). */
function victimOutputs(): string[] {
  if (!existsSync(podLogsDir)) return [];
  const podDir = readdirSync(podLogsDir).find((name) => name.startsWith(`default_${POD}-${NODE}_`));
  if (!podDir) return [];
  const outputs: string[] = [];
  for (let index = 0; index < VICTIMS; index++) {
    const containerDir = join(podLogsDir, podDir, `victim-${index}`);
    if (!existsSync(containerDir)) continue;
    for (const file of readdirSync(containerDir)) {
      const text = readFileSync(join(containerDir, file), 'utf8');
      if (text.includes(SEEN_HOST) || text.includes(SEEN_VOLUME)) outputs.push(text);
    }
  }
  return outputs;
}

test('a container swapping a subPath directory for a symlink to / never gives its restarting neighbours the host', async (t) => {
  writeFileSync(join(kubelet.manifestDir, `${POD}.yaml`), attackPod(containerd.busyboxImage));
  const pod = await waitUntil(async () => (await kubelet.pods()).find((candidate) => candidate.metadata?.name === `${POD}-${NODE}`), 60_000, 'pod admitted');
  podUid = pod.metadata!.uid!;
  // Until enough starts were seen (or the wait is over); a lost race is the answer already.
  const deadline = Date.now() + WAIT_MS;
  let outputs = victimOutputs();
  while (Date.now() < deadline && outputs.length < VICTIM_STARTS && !outputs.some((text) => text.includes(SEEN_HOST))) {
    await sleep(POLL_MS);
    outputs = victimOutputs();
  }
  const escaped = outputs.filter((text) => text.includes(SEEN_HOST));
  const refusals = kubelet.logs.filter((line) => line.code === 'SHARDLET_SUBPATH_FAILED').map((line) => String(line.cause).replace(/\/proc\/\S+|\/tmp\/\S+/g, '<path>').slice(0, 60));
  const countsByCause = new Map<string, number>();
  for (const cause of refusals) countsByCause.set(cause, (countsByCause.get(cause) ?? 0) + 1);
  const refusalCounts = [...countsByCause].map(([cause, count]) => `${count} × ${cause}`);
  t.diagnostic(`victim starts: ${outputs.length}, saw the host's /: ${escaped.length}; starts refused: ${refusals.length} (${refusalCounts.join('; ')})`);
  assert.deepEqual(escaped, [], 'no victim ever sees the host\'s /');
  assert.ok(outputs.length >= VICTIM_STARTS, `only ${outputs.length} victim starts in ${WAIT_MS} ms`);

  // The pod gone, its subPath bind mounts are gone too, and with them the pod's directory.
  rmSync(join(kubelet.manifestDir, `${POD}.yaml`));
  await waitUntil(async () => (await kubelet.pods()).length === 0, 90_000, 'pod removed');
  await waitUntil(async () => !existsSync(join(kubelet.rootDir, 'pods', podUid!)), 30_000, 'pod directory removed');
  assert.deepEqual(await mountsUnder(kubelet.rootDir), []);
});
