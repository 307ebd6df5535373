// `npm start`: shardlet standalone against the built-in simulated runtime, with the
// example static pods, so a newcomer sees pods go Running. The runtime and the
// kubelet are two processes, as on a real node; both log pino JSON to stdout, and a
// one-line summary of the pods is printed to stderr every few seconds.
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGE_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SUMMARY_PERIOD_MS = 3_000;
const DEMO_READ_ONLY_PORT = Number(process.env.SHARDLET_DEMO_PORT ?? 10255);

const workDir = mkdtempSync(join(tmpdir(), 'shardlet-demo-'));
const socket = join(workDir, 'sim.sock');
const manifests = join(workDir, 'manifests');
cpSync(join(PACKAGE_ROOT, 'examples/static-pods'), manifests, { recursive: true });

const children: ChildProcess[] = [];
function run(script: string, args: string[]): ChildProcess {
  const child = spawn(process.execPath, [join(PACKAGE_ROOT, script), ...args], { stdio: ['ignore', 'inherit', 'inherit'] });
  children.push(child);
  child.on('exit', (code) => {
    if (!stopping) {
      process.stderr.write(`demo: ${script} exited with code ${code}\n`);
      stop(1);
    }
  });
  return child;
}

let stopping = false;
function stop(code: number): void {
  stopping = true;
  for (const child of children) child.kill('SIGTERM');
  setTimeout(() => process.exit(code), 500).unref();
}
process.on('SIGINT', () => stop(0));
process.on('SIGTERM', () => stop(0));

run('dist/src/simruntime/cli.js', ['--socket', socket]);
run('dist/src/main/cli.js', [
  `--container-runtime-endpoint=unix://${socket}`,
  `--pod-manifest-path=${manifests}`,
  `--root-dir=${join(workDir, 'root')}`,
  `--read-only-port=${DEMO_READ_ONLY_PORT}`,
  '--hostname-override=demo-node',
  '--workers=2',
]);
process.stderr.write(`demo: manifests in ${manifests} (add, edit or remove files there); pods at http://127.0.0.1:${DEMO_READ_ONLY_PORT}/pods\n`);

setInterval(async () => {
  try {
    const reply = await fetch(`http://127.0.0.1:${DEMO_READ_ONLY_PORT}/pods`);
    const list = (await reply.json()) as { items: Array<{ metadata: { name: string }; status?: { phase?: string } }> };
    const line = list.items.map((pod) => `${pod.metadata.name}=${pod.status?.phase ?? 'Pending'}`).join(' ');
    process.stderr.write(`demo: ${list.items.length} pods: ${line}\n`);
  } catch {
    // The kubelet is still starting.
  }
}, SUMMARY_PERIOD_MS);
