// Drives a real shardlet process the way an operator would: flags on the command
// line, manifests in a directory, and the read-only /pods endpoint to read status.
import { spawn, type ChildProcess } from 'node:child_process';
import https from 'node:https';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import type { Pod } from '../../src/shared/types.js';
import { freePort } from '../../src/tools/free-port.js';

export const PACKAGE_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const CLI = join(PACKAGE_ROOT, 'dist/src/main/cli.js');
const POLL_MS = 200;

export interface KubeletProcess {
  child: ChildProcess;
  /** The read-only port. */
  port: number;
  /** The kubelet API's port (--port), unless the test gave its own. */
  apiPort?: number;
  manifestDir: string;
  rootDir: string;
  /** Every JSON log line so far. */
  logs: Array<Record<string, unknown>>;
  /** Everything shardlet wrote to stderr so far (also passed through to the test's stderr). */
  readonly stderr: string;
  pods(): Promise<Pod[]>;
  /** SIGTERM to shardlet's process group; resolves once it exited. */
  stop(): Promise<void>;
  /** SIGKILL to shardlet's process group, as a crash or an OOM kill; resolves once it exited. */
  kill9(): Promise<void>;
}


export async function startKubelet(options: {
  runtimeEndpoint: string;
  workers: number;
  extraArgs?: string[];
  workDir?: string;
  nodeName?: string;
  /** Environment variables added to the test's own. */
  env?: NodeJS.ProcessEnv;
}): Promise<KubeletProcess> {
  const workDir = options.workDir ?? mkdtempSync(join(tmpdir(), 'shardlet-test-'));
  const manifestDir = join(workDir, 'manifests');
  const rootDir = join(workDir, 'root');
  mkdirSync(manifestDir, { recursive: true });
  const port = await freePort();
  const serverArgs = await kubeletServerPortArgs(options.extraArgs ?? []);
  const { child, logs, stderr } = spawnShardlet([
    ...serverArgs,
    `--container-runtime-endpoint=${options.runtimeEndpoint}`,
    `--pod-manifest-path=${manifestDir}`,
    `--root-dir=${rootDir}`,
    `--read-only-port=${port}`,
    `--workers=${options.workers}`,
    `--hostname-override=${options.nodeName ?? 'test-node'}`,
    '--file-check-frequency=1s',
    '--v=4',
    ...(options.extraArgs ?? []),
  ], options.env);
  const apiPortArg = serverArgs.find((arg) => arg.startsWith('--port='));
  const kubelet: KubeletProcess = {
    child,
    port,
    apiPort: apiPortArg ? Number(apiPortArg.slice('--port='.length)) : undefined,
    manifestDir,
    rootDir,
    logs,
    async pods() {
      const reply = await fetch(`http://127.0.0.1:${port}/pods`);
      return ((await reply.json()) as { items: Pod[] }).items;
    },
    get stderr() {
      return stderr();
    },
    stop: () => signalGroup(child, 'SIGTERM'),
    kill9: () => signalGroup(child, 'SIGKILL'),
  };
  await waitUntil(async () => {
    if (child.exitCode !== null) throw new Error(`shardlet exited early with code ${child.exitCode}: ${stderr().slice(-2_000)}`);
    try {
      return (await fetch(`http://127.0.0.1:${port}/healthz`)).ok;
    } catch {
      return false;
    }
  }, 60_000, 'shardlet /healthz');
  return kubelet;
}

/**
 * A free --port (the kubelet API, 10250 by default) and --healthz-port=0 (no
 * 10248), unless `args` give their own: tests run side by side and must never
 * bind the fixed ports. Put them before `args` so a test's own flags win.
 */
export async function kubeletServerPortArgs(args: readonly string[]): Promise<string[]> {
  const given = (flag: string) => args.some((arg) => arg === flag || arg.startsWith(`${flag}=`));
  const extra: string[] = [];
  if (!given('--port')) extra.push(`--port=${await freePort()}`);
  if (!given('--healthz-port')) extra.push('--healthz-port=0');
  return extra;
}

export interface ShardletChild {
  child: ChildProcess;
  /** Every JSON log line so far. */
  logs: Array<Record<string, unknown>>;
  /** Everything it wrote to stderr so far (also passed through to the test's stderr). */
  stderr: () => string;
}

/**
 * A `--config-dir` drop-in giving the kubelet a podLogsDir of its own, unless the
 * test chose one (its config file sets podLogsDir, or it passes drop-ins itself).
 * Test kubelets run side by side, and each one's container GC removes the
 * directories in podLogsDir of pods it does not know (upstream's
 * evictPodLogsDirectories): a shared /var/log/pods lost the logs of the others' pods.
 * podLogsDir has no flag upstream, hence the drop-in.
 */
function privatePodLogsDirArgs(args: readonly string[]): string[] {
  const value = (flag: string) => args.find((arg) => arg.startsWith(`${flag}=`))?.slice(flag.length + 1);
  if (value('--config-dir') !== undefined) return [];
  const configFile = value('--config');
  if (configFile && (parseYaml(readFileSync(configFile, 'utf8')) as { podLogsDir?: string } | null)?.podLogsDir !== undefined) return [];
  const rootDir = value('--root-dir');
  const base = rootDir ? dirname(rootDir) : mkdtempSync(join(tmpdir(), 'shardlet-test-'));
  const dir = mkdtempSync(join(base, 'kubelet-'));
  const podLogsDir = join(dir, 'pod-logs');
  const dropIns = join(dir, 'config.d');
  mkdirSync(podLogsDir);
  mkdirSync(dropIns);
  const dropIn = { apiVersion: 'kubelet.config.k8s.io/v1beta1', kind: 'KubeletConfiguration', podLogsDir };
  writeFileSync(join(dropIns, '00-test-pod-logs.conf'), JSON.stringify(dropIn));
  return [`--config-dir=${dropIns}`];
}

/** Starts `shardlet ARGS` in its own process group (so stopping it reaches everything it started), collecting its log lines. */
export function spawnShardlet(args: string[], env?: NodeJS.ProcessEnv): ShardletChild {
  const child = spawn(process.execPath, [CLI, ...privatePodLogsDirArgs(args), ...args], { stdio: ['ignore', 'pipe', 'pipe'], detached: true, env: env ? { ...process.env, ...env } : undefined });
  const logs: Array<Record<string, unknown>> = [];
  let buffered = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) {
      try {
        logs.push(JSON.parse(line));
      } catch {
        logs.push({ msg: line });
      }
    }
    if (process.env.SHARDLET_TEST_LOGS) process.stderr.write(chunk);
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    process.stderr.write(chunk);
  });
  return { child, logs, stderr: () => stderr };
}

/** Signals the child's whole process group and waits for the child to exit. */
export async function signalGroup(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    process.kill(-child.pid!, signal);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
  }
  await exited;
}

/** Polls until the check returns a truthy value; fails with the description after the timeout. */
export async function waitUntil<T>(check: () => Promise<T | undefined | false>, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value) return value;
    } catch (err) {
      lastError = err;
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${lastError ? `: ${(lastError as Error).message}` : ''}`);
}

/** The pod whose name starts with `prefix` (static pods carry a -<node> suffix). */
export function findPod(pods: Pod[], prefix: string): Pod | undefined {
  return pods.find((pod) => pod.metadata?.name === `${prefix}-test-node`);
}

export function isRunningAndReady(pod: Pod | undefined): boolean {
  return (
    pod?.status?.phase === 'Running' &&
    (pod.status.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True')
  );
}

/**
 * An anonymous GET on the kubelet API (:10250, its self-signed serving certificate not
 * checked): without --config, upstream's legacy defaults let anonymous requests in.
 */
export function kubeletApiGet(kubelet: KubeletProcess, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = https.request({ host: '127.0.0.1', port: kubelet.apiPort, path, rejectUnauthorized: false }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}
