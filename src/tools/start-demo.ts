// `npm start`: shardlet standalone against the built-in simulated runtime, with the
// example static pods, so a newcomer sees pods go Running. The runtime and the
// kubelet are two processes, as on a real node; both log pino JSON to stdout, and a
// one-line summary of the pods is printed to stderr every few seconds.
//
// The kubelet runs as a node should: with a config file (demo-config.ts), its API on
// 127.0.0.1 only and open to the holder of the demo's client certificate alone, so
// no deprecated flag and no legacy default (anonymous access, AlwaysAllow on every
// interface) is involved. The summary reads /pods the way the user can, with curl.
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { CertificateAuthority } from '../testapiserver/tls.js';
import { DEMO_API_ADDRESS, demoKubeletConfig, demoKubeletFlags } from './demo-config.js';

const PACKAGE_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SUMMARY_PERIOD_MS = 3_000;
const RUNTIME_START_TIMEOUT_MS = 30_000;
const RUNTIME_POLL_MS = 50;
/** The kubelet API's port: upstream's 10250 unless SHARDLET_DEMO_PORT says otherwise. */
const DEMO_API_PORT = Number(process.env.SHARDLET_DEMO_PORT ?? 10250);

const workDir = mkdtempSync(join(tmpdir(), 'shardlet-demo-'));
const socket = join(workDir, 'sim.sock');
const manifests = join(workDir, 'manifests');
const rootDir = join(workDir, 'root');
cpSync(join(PACKAGE_ROOT, 'examples/static-pods'), manifests, { recursive: true });

// The demo's own CA (in a directory only this user can read) and the one client certificate it signs.
const authority = await CertificateAuthority.create(join(workDir, 'pki'));
const client = await authority.clientCert({ user: 'demo-admin', groups: [] });
const configFile = join(workDir, 'kubelet-config.yaml');
writeFileSync(
  configFile,
  stringify(
    demoKubeletConfig({
      runtimeEndpoint: `unix://${socket}`,
      staticPodPath: manifests,
      clientCAFile: authority.ca.certFile,
      podLogsDir: join(workDir, 'pod-logs'),
      port: DEMO_API_PORT,
    }),
  ),
);
/** The kubelet's self-signed serving certificate, written at its start (--cert-dir defaults to <root-dir>/pki). */
const servingCertFile = join(rootDir, 'pki', 'kubelet.crt');

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
// The kubelet waits for a runtime that is not there yet, but says so in a warning: on a
// busy machine the sim's socket came after the kubelet's first try. A node's unit
// orders the kubelet after its runtime; the demo waits for the socket alike.
await waitForSocket(socket);
run('dist/src/main/cli.js', demoKubeletFlags(configFile, rootDir));
const podsUrl = `https://${DEMO_API_ADDRESS}:${DEMO_API_PORT}/pods`;
process.stderr.write(
  `demo: manifests in ${manifests} (add, edit or remove files there); config in ${configFile}\n` +
    `demo: pods: curl --cacert ${servingCertFile} --cert ${client.certFile} --key ${client.keyFile} ${podsUrl}\n`,
);

/** Resolves once the runtime's socket exists, or after RUNTIME_START_TIMEOUT_MS (the kubelet then retries on its own). */
async function waitForSocket(path: string): Promise<void> {
  const deadline = Date.now() + RUNTIME_START_TIMEOUT_MS;
  while (!existsSync(path) && Date.now() < deadline && !stopping) await sleep(RUNTIME_POLL_MS);
}

/** /pods over the kubelet API, as the demo's client. */
function fetchPods(): Promise<Array<{ metadata: { name: string }; status?: { phase?: string } }>> {
  return new Promise((resolve, reject) => {
    const req = https.get(podsUrl, { ca: readFileSync(servingCertFile), cert: client.certPem, key: client.keyPem }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => {
        if (res.statusCode !== 200) return reject(new Error(`${res.statusCode}: ${body}`));
        resolve((JSON.parse(body) as { items: Array<{ metadata: { name: string }; status?: { phase?: string } }> }).items);
      });
    });
    req.on('error', reject);
  });
}

setInterval(async () => {
  try {
    const pods = await fetchPods();
    const line = pods.map((pod) => `${pod.metadata.name}=${pod.status?.phase ?? 'Pending'}`).join(' ');
    process.stderr.write(`demo: ${pods.length} pods: ${line}\n`);
  } catch {
    // The kubelet is still starting.
  }
}, SUMMARY_PERIOD_MS);
