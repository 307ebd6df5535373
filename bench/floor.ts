// The floor of a run: the same runtime work done by a bare parallel CRI client
// (floor-client.ts) with no kubelet logic, against a fresh simulated runtime with
// the same profile and images (there it is the critical path the runtime model
// allows), or against containerd in the same bench invocation, with its own pod
// names and its sandboxes removed afterwards. shardlet's time divided by this one
// says how much the kubelet itself adds.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { openBenchRuntime, type ContainerdTarget } from './bench-runtime.js';
import { FLOOR_LABEL, type FloorClientReport, type FloorJob } from './floor-job.js';
import type { StepProgress } from './progress.js';
import type { FloorResult } from './results.js';
import type { FloorSpec } from './scenarios.js';
import { summarize } from './stats.js';
import { removeWorkDir } from './work-dir.js';

const FLOOR_CLIENT = fileURLToPath(new URL('./floor-client.js', import.meta.url));

export async function measureFloor(spec: FloorSpec, containerd: ContainerdTarget | undefined, progress: StepProgress): Promise<FloorResult> {
  const workDir = mkdtempSync(join(tmpdir(), 'shardlet-floor-'));
  const result: FloorResult = { spec };
  try {
    const runtime = await openBenchRuntime(spec.profile, spec.imageSet, workDir, containerd, { [FLOOR_LABEL]: 'true' });
    try {
      const job: FloorJob = {
        endpoint: runtime.endpoint,
        pods: spec.pods,
        images: spec.imageSet.images,
        imagePulls: spec.imagePulls,
        runId: `floor-${Date.now().toString(36)}`,
        logDir: join(workDir, 'logs'),
      };
      const report = await runFloorClient(job, progress);
      const latencies = report.runningAtMs.map((atMs) => atMs - report.startedAtMs);
      const allRunningMs = Math.max(...latencies);
      result.measured = {
        allRunningMs,
        latency: summarize(latencies),
        podsPerSecond: spec.pods / (allRunningMs / 1000),
        criCalls: report.calls,
        clientCpuSeconds: report.cpuSeconds,
        podLatenciesMs: latencies,
      };
    } finally {
      await runtime.close();
    }
  } catch (err) {
    result.error = (err as Error).message;
  } finally {
    await removeWorkDir(workDir);
  }
  return result;
}

/** Runs the client process, relaying its progress lines; resolves with its report. */
async function runFloorClient(job: FloorJob, progress: StepProgress): Promise<FloorClientReport> {
  const child = spawn(process.execPath, [FLOOR_CLIENT, JSON.stringify(job)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let report: FloorClientReport | undefined;
  for await (const line of createInterface({ input: child.stdout })) {
    const message = JSON.parse(line) as { running?: number; result?: FloorClientReport };
    if (message.running !== undefined) progress.update(message.running, job.pods, 'started');
    if (message.result) report = message.result;
  }
  const code = await exited;
  if (code !== 0 || !report) throw new Error(`floor client exited ${code}: ${stderr.trim() || 'no report'}`);
  return report;
}
