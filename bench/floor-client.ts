// The bare parallel CRI client behind the floor, as its own process (like shardlet,
// so it has cores of its own and its CPU is its own): every pod at once, with the
// runtime calls a pod start needs and no kubelet logic. Per pod: RunPodSandbox
// alongside the pod's image (ImageStatus, and PullImage when absent: each image
// once, under the same serialize / maxParallelImagePulls limit as shardlet's run);
// then the init container, if any, created, started and polled until it exited;
// then CreateContainer and StartContainer of the app container.
//   node dist/bench/floor-client.js '<FloorJob as JSON>'
// Prints one JSON line per pod started ({"running": n}) and a last one with the result.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { CriCallCounts } from '../src/shared/cri/call-counts.js';
import { CriClient } from '../src/shared/cri/client.js';
import type * as cri from '../src/shared/cri/types.js';
import { APP_COMMAND, INIT_COMMAND, benchPods, type BenchPod } from './bench-pods.js';
import { FLOOR_LABEL, FLOOR_NAMESPACE, type FloorClientReport, type FloorJob } from './floor-job.js';
import { limiter } from './limiter.js';

/**
 * How often the client asks whether an init container has exited (containerd 1.6
 * has no container events): soon at first (the sim's `true` exits within 10 ms),
 * then backing off so that polls do not load a busy runtime.
 */
const EXIT_POLL_FIRST_MS = 10;
const EXIT_POLL_MAX_MS = 100;
const CALL_TIMEOUT_MS = 5 * 60_000;

async function runFloor(job: FloorJob): Promise<FloorClientReport> {
  const callCounts = new CriCallCounts();
  const client = new CriClient(job.endpoint, { timeoutMs: CALL_TIMEOUT_MS, pullTimeoutMs: CALL_TIMEOUT_MS, callCounts });
  const pullSlot = limiter(job.imagePulls.serialize ? 1 : job.imagePulls.maxParallel);
  const imageRefs = new Map<string, Promise<string>>();
  // As an IfNotPresent pull policy: look first, pull only what is missing.
  const ensureImage = (image: string): Promise<string> => {
    let ref = imageRefs.get(image);
    if (!ref) {
      ref = client.imageStatus({ image: { image } }).then(async (status) => {
        if (status.image) return status.image.id;
        return (await pullSlot(() => client.pullImage({ image: { image } }))).image_ref;
      });
      imageRefs.set(image, ref);
    }
    return ref;
  };
  let running = 0;
  const cpuBefore = process.cpuUsage();
  const startedAtMs = Date.now();
  try {
    const runningAtMs = await Promise.all(
      benchPods(job.pods, job.images).map(async (pod, index) => {
        await startPod(client, job, pod, index, ensureImage);
        process.stdout.write(`${JSON.stringify({ running: ++running })}\n`);
        return Date.now();
      }),
    );
    const cpu = process.cpuUsage(cpuBefore);
    return { startedAtMs, runningAtMs, calls: callCounts.snapshot(), cpuSeconds: (cpu.user + cpu.system) / 1e6 };
  } finally {
    client.close();
  }
}

async function startPod(client: CriClient, job: FloorJob, pod: BenchPod, index: number, ensureImage: (image: string) => Promise<string>): Promise<void> {
  const uid = `${job.runId}-${index}`;
  const logDirectory = join(job.logDir, `${FLOOR_NAMESPACE}_${pod.name}_${uid}`);
  mkdirSync(logDirectory, { recursive: true });
  const sandboxConfig: cri.PodSandboxConfig = {
    metadata: { name: pod.name, uid, namespace: FLOOR_NAMESPACE, attempt: 0 },
    hostname: pod.name,
    log_directory: logDirectory,
    labels: { [FLOOR_LABEL]: 'true', 'io.kubernetes.pod.name': pod.name, 'io.kubernetes.pod.namespace': FLOOR_NAMESPACE, 'io.kubernetes.pod.uid': uid },
    linux: { security_context: { namespace_options: { network: 'POD', pid: 'CONTAINER', ipc: 'POD' } } },
  };
  const [{ pod_sandbox_id: sandboxId }, imageRef] = await Promise.all([client.runPodSandbox({ config: sandboxConfig }), ensureImage(pod.image)]);
  const startContainer = async (name: string, command: string[]): Promise<string> => {
    mkdirSync(join(logDirectory, name), { recursive: true });
    const config: cri.ContainerConfig = { metadata: { name, attempt: 0 }, image: { image: imageRef }, command, log_path: `${name}/0.log` };
    const { container_id: containerId } = await client.createContainer({ pod_sandbox_id: sandboxId, config, sandbox_config: sandboxConfig });
    await client.startContainer({ container_id: containerId });
    return containerId;
  };
  if (pod.withInitContainer) await waitExited(client, await startContainer('init', INIT_COMMAND));
  await startContainer('app', APP_COMMAND);
}

async function waitExited(client: CriClient, containerId: string): Promise<void> {
  for (let pollMs = EXIT_POLL_FIRST_MS; ; pollMs = Math.min(pollMs * 2, EXIT_POLL_MAX_MS)) {
    const { status } = await client.containerStatus({ container_id: containerId });
    if (status?.state === 'CONTAINER_EXITED') {
      if (status.exit_code !== 0) throw new Error(`init container ${containerId} exited ${status.exit_code}: ${status.reason} ${status.message}`);
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

const job = JSON.parse(process.argv[2] ?? '{}') as FloorJob;
runFloor(job).then(
  (report) => process.stdout.write(`${JSON.stringify({ result: report })}\n`),
  (err: Error) => {
    process.stderr.write(`floor client: ${err.message}\n`);
    process.exit(1);
  },
);
