// The floor for a scenario: the same work done by a bare CRI client with nothing
// in the way (every pod at once, one pull per image, no kubelet logic), against a
// fresh simulated runtime with the same latency model. The ratio of shardlet's
// figures to these says how much the kubelet itself adds.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CriClient } from '../src/shared/cri/client.js';
import { startSimRuntime } from '../src/simruntime/server.js';
import type { ScenarioSpec } from './scenario.js';
import { percentile } from './stats.js';

export interface FloorResult {
  allRunningMs: number;
  p50Ms: number;
  p99Ms: number;
}

const FLOOR_TIMEOUT_MS = 120_000;

export async function measureFloor(spec: ScenarioSpec): Promise<FloorResult> {
  const workDir = mkdtempSync(join(tmpdir(), 'shardlet-floor-'));
  const socketPath = join(workDir, 'sim.sock');
  const sim = await startSimRuntime({ socketPath });
  const cri = new CriClient(`unix://${socketPath}`, { timeoutMs: FLOOR_TIMEOUT_MS });
  const pullsByImage = new Map<string, Promise<string>>();
  const pull = (image: string) => {
    let pending = pullsByImage.get(image);
    if (!pending) {
      pending = cri.pullImage({ image: { image } }).then((reply) => reply.image_ref);
      pullsByImage.set(image, pending);
    }
    return pending;
  };
  try {
    const startedMs = Date.now();
    const latencies = await Promise.all(
      Array.from({ length: spec.pods }, async (_, index) => {
        const uid = `floor-${index}`;
        const config = { metadata: { name: uid, uid, namespace: 'bench', attempt: 0 }, labels: { 'io.kubernetes.pod.uid': uid } };
        const image = `registry.bench/app-${index % spec.images}:1.0`;
        const [sandbox, imageRef] = await Promise.all([cri.runPodSandbox({ config }), pull(image)]);
        const created = await cri.createContainer({
          pod_sandbox_id: sandbox.pod_sandbox_id,
          config: { metadata: { name: 'app', attempt: 0 }, image: { image: imageRef }, command: ['sh', '-c', 'sleep 3600'] },
          sandbox_config: config,
        });
        await cri.startContainer({ container_id: created.container_id });
        return Date.now() - startedMs;
      }),
    );
    latencies.sort((a, b) => a - b);
    return {
      allRunningMs: latencies[latencies.length - 1],
      p50Ms: percentile(latencies, 0.5),
      p99Ms: percentile(latencies, 0.99),
    };
  } finally {
    cri.close();
    await sim.close();
    rmSync(workDir, { recursive: true, force: true });
  }
}
