// What a CRI contract case (cri-contract-cases.ts) works with: the runtime under
// test (the simulated runtime or containerd) and helpers that create sandboxes and
// containers in the suite's own label namespace and take every one of them away
// again after the case, so a case run against the shared containerd leaves nothing
// behind and never touches another test's pods.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CriClient } from '../../src/shared/cri/client.js';
import { grpcCodeOf, grpcStatusName } from '../../src/shared/cri/cri-error.js';
import type * as cri from '../../src/shared/cri/types.js';
import type { FullCriClient } from '../helpers/full-cri.js';

/** The label every sandbox of the contract suite carries; its value is the run's ID. */
export const CONTRACT_LABEL = 'shardlet.test/cri-contract';
/** How long a case waits for a container to reach a state: critest waits a minute. */
export const STATE_TIMEOUT_MS = 60_000;
/** critest's ExecSync timeout. */
export const EXEC_TIMEOUT_SECONDS = 30;

export type RuntimeKind = 'sim' | 'containerd-1.6';

export interface ContractTarget {
  kind: RuntimeKind;
  client: CriClient;
  /** For the fields CriClient's lean decoders skip (image tags, mounts, annotations). */
  full: FullCriClient;
  /** A busybox image the runtime can pull (and usually has). */
  busybox: string;
  /** Another tag of the very same image as `busybox` in the same repository. */
  busyboxOtherTag: string;
  /** An image whose config names a numeric non-root user, and that uid. */
  nonRoot: { image: string; uid: number };
  /** Where the cases' log directories go. */
  workDir: string;
  /** This run's value of CONTRACT_LABEL. */
  runId: string;
}

export interface SandboxHandle {
  id: string;
  config: cri.PodSandboxConfig;
}

export type SandboxOptions = Omit<Partial<cri.PodSandboxConfig>, 'metadata'>;
export type ContainerOptions = Omit<Partial<cri.ContainerConfig>, 'metadata' | 'command'>;

export class ContractContext {
  private readonly sandboxIds: string[] = [];
  private readonly directories: string[] = [];
  /** Image references a case removed that were on the node before it: pulled again afterwards. */
  private readonly imagesToRestore = new Set<string>();

  constructor(readonly target: ContractTarget) {}

  get client(): CriClient {
    return this.target.client;
  }

  get full(): FullCriClient {
    return this.target.full;
  }

  /** A name no other case or run uses. */
  uniqueName(prefix: string): string {
    return `${prefix}-${randomBytes(4).toString('hex')}`;
  }

  /** A fresh pod log directory (created) for a sandbox's `log_directory`. */
  logDirectory(): string {
    const dir = mkdtempSync(join(this.target.workDir, 'pod-logs-'));
    this.directories.push(dir);
    return dir;
  }

  sandboxConfig(name: string, options: SandboxOptions = {}): cri.PodSandboxConfig {
    return {
      hostname: name,
      ...options,
      metadata: { name, uid: this.uniqueName('uid'), namespace: 'cri-contract', attempt: 0 },
      labels: { ...options.labels, [CONTRACT_LABEL]: this.target.runId },
      linux: options.linux ?? {},
    };
  }

  /** Runs a sandbox; it is stopped and removed after the case. */
  async sandbox(prefix: string, options: SandboxOptions = {}): Promise<SandboxHandle> {
    const config = this.sandboxConfig(this.uniqueName(prefix), options);
    const reply = await this.client.runPodSandbox({ config }, STATE_TIMEOUT_MS);
    this.sandboxIds.push(reply.pod_sandbox_id);
    return { id: reply.pod_sandbox_id, config };
  }

  /** Creates a busybox container (the image pulled if missing) running `command`. */
  async container(sandbox: SandboxHandle, prefix: string, command: string[], options: ContainerOptions = {}): Promise<string> {
    const image = options.image?.image ?? this.target.busybox;
    await this.ensureImage(image);
    const name = this.uniqueName(prefix);
    const config: cri.ContainerConfig = {
      ...options,
      metadata: { name, attempt: 0 },
      image: { image },
      command,
    };
    const reply = await this.client.createContainer({ pod_sandbox_id: sandbox.id, config, sandbox_config: sandbox.config }, STATE_TIMEOUT_MS);
    return reply.container_id;
  }

  /** Creates and starts a container, and waits until it runs. */
  async runningContainer(sandbox: SandboxHandle, prefix: string, command: string[], options: ContainerOptions = {}): Promise<string> {
    const id = await this.container(sandbox, prefix, command, options);
    await this.client.startContainer({ container_id: id }, STATE_TIMEOUT_MS);
    await this.waitForState(id, 'CONTAINER_RUNNING');
    return id;
  }

  async containerStatus(id: string): Promise<cri.ContainerStatus__Output> {
    const reply = await this.full.containerStatus({ container_id: id });
    assert.ok(reply.status, `ContainerStatus of ${id} has no status`);
    return reply.status;
  }

  async sandboxStatus(id: string): Promise<cri.PodSandboxStatus__Output> {
    const reply = await this.full.podSandboxStatus({ pod_sandbox_id: id });
    assert.ok(reply.status, `PodSandboxStatus of ${id} has no status`);
    return reply.status;
  }

  /** Polls ContainerStatus until the container is in `state` (critest's Eventually). */
  async waitForState(id: string, state: string, timeoutMs = STATE_TIMEOUT_MS): Promise<cri.ContainerStatus__Output> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const status = await this.containerStatus(id);
      if (status.state === state) return status;
      if (Date.now() > deadline) assert.fail(`container ${id} is ${status.state}, not ${state}, after ${timeoutMs} ms`);
      await sleep(50);
    }
  }

  /** Polls `check` until it returns true. */
  async eventually(what: string, check: () => Promise<boolean> | boolean, timeoutMs = STATE_TIMEOUT_MS): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!(await check())) {
      if (Date.now() > deadline) assert.fail(`${what}: not so after ${timeoutMs} ms`);
      await sleep(50);
    }
  }

  /** ExecSync with critest's timeout; stdout and stderr as text. */
  async exec(id: string, cmd: string[]): Promise<{ stdout: string; stderr: string; exitCode: number }> {
    const reply = await this.client.execSync({ container_id: id, cmd, timeout: EXEC_TIMEOUT_SECONDS }, (EXEC_TIMEOUT_SECONDS + 10) * 1000);
    return { stdout: Buffer.from(reply.stdout).toString(), stderr: Buffer.from(reply.stderr).toString(), exitCode: reply.exit_code };
  }

  /** Pulls `image` unless the runtime has it. */
  async ensureImage(image: string): Promise<void> {
    const status = await this.client.imageStatus({ image: { image } });
    if (!status.image) await this.client.pullImage({ image: { image } }, STATE_TIMEOUT_MS);
  }

  /** Removes the image `image` names (every tag of it), pulling the given references again after the case. */
  async removeImageForCase(image: string, restore: string[]): Promise<void> {
    for (const ref of restore) {
      if ((await this.client.imageStatus({ image: { image: ref } })).image) this.imagesToRestore.add(ref);
    }
    const status = await this.client.imageStatus({ image: { image } });
    if (status.image) await this.client.removeImage({ image: { image: status.image.id } });
  }

  /** Takes away what the case made: its sandboxes (with their containers), directories, and images it removed come back. */
  async cleanup(): Promise<void> {
    for (const id of this.sandboxIds.splice(0)) {
      await this.client.stopPodSandbox({ pod_sandbox_id: id }, STATE_TIMEOUT_MS).catch(() => undefined);
      await this.client.removePodSandbox({ pod_sandbox_id: id }, STATE_TIMEOUT_MS).catch(() => undefined);
    }
    for (const dir of this.directories.splice(0)) rmSync(dir, { recursive: true, force: true });
    for (const image of this.imagesToRestore) await this.client.pullImage({ image: { image } }, STATE_TIMEOUT_MS);
    this.imagesToRestore.clear();
  }
}

/** The gRPC status name a rejected call carried (NOT_FOUND, …), failing when it succeeded. */
export async function failureCode(call: Promise<unknown>): Promise<string> {
  try {
    await call;
  } catch (err) {
    const code = grpcCodeOf(err);
    return code === undefined ? `not a gRPC error: ${String(err)}` : grpcStatusName(code);
  }
  return assert.fail('expected the call to fail, it succeeded');
}

/** A directory for a container's log files inside a pod log directory, created as the kubelet creates it. */
export function containerLogDirectory(podLogDirectory: string, containerName: string): string {
  const dir = join(podLogDirectory, containerName);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** One statement of the CRI contract, checked against a runtime. */
export interface ContractCase {
  name: string;
  /** What the CRI spec (api.proto) or cri-tools' validation suite says, and where. */
  spec: string;
  run(ctx: ContractContext): Promise<void>;
  /**
   * containerd 1.6 (the runtime on these machines) does otherwise for a known
   * reason: the reason, and a check of what 1.6 does instead, so the table stays
   * honest on both (the sim follows the spec and the newer runtimes).
   */
  containerd16?: { reason: string; run(ctx: ContractContext): Promise<void> };
}

/** A spec of critest the table leaves out, and why. */
export interface SkippedSpec {
  name: string;
  reason: string;
}
