// Sandbox and container lifecycles on the simulated runtime, driven over its
// socket with CriClient: the CRI contract the kubelet relies on against containerd.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { isNotFound } from '../../src/shared/cri/client.js';
import { FullCriClient } from '../helpers/full-cri.js';
import { containerConfig, eventually, rejectionOf, sandboxConfig, startHarness, TEST_IMAGE, type SimHarness } from './harness.js';

describe('simulated runtime: lifecycle', () => {
  let h: SimHarness;
  before(async () => {
    h = await startHarness();
    await h.client.pullImage({ image: { image: TEST_IMAGE } });
  });
  after(async () => h.close());

  async function runningContainer(pod: string, command: string[]): Promise<{ sandboxId: string; containerId: string }> {
    const config = sandboxConfig(pod);
    const { pod_sandbox_id: sandboxId } = await h.client.runPodSandbox({ config });
    const { container_id: containerId } = await h.client.createContainer({
      pod_sandbox_id: sandboxId,
      config: containerConfig('app', command),
      sandbox_config: config,
    });
    await h.client.startContainer({ container_id: containerId });
    return { sandboxId, containerId };
  }

  it('runs a sandbox and a container through their whole lives', async () => {
    const config = sandboxConfig('web', { labels: { tier: 'front' } });
    const beforeNs = Date.now() * 1e6;
    const { pod_sandbox_id: sandboxId } = await h.client.runPodSandbox({ config });
    assert.match(sandboxId, /^[0-9a-f]{64}$/);

    const sandbox = (await h.client.podSandboxStatus({ pod_sandbox_id: sandboxId })).status!;
    assert.equal(sandbox.state, 'SANDBOX_READY');
    assert.deepEqual(sandbox.metadata, config.metadata);
    // CriClient does not decode a sandbox status's labels and annotations: read the whole reply.
    const full = new FullCriClient(h.socketPath);
    const wholeSandbox = (await full.podSandboxStatus({ pod_sandbox_id: sandboxId }).finally(() => full.close())).status!;
    assert.deepEqual(wholeSandbox.labels, config.labels);
    assert.deepEqual(wholeSandbox.annotations, config.annotations);
    assert.match(sandbox.network!.ip, /^10\.88\.\d+\.\d+$/);
    assert.ok(sandbox.created_at >= beforeNs - 1e9, 'created_at is in nanoseconds since the epoch');

    const cConfig = containerConfig('app', ['sh', '-c', 'sleep 3600'], { labels: { role: 'main' } });
    const { container_id: containerId } = await h.client.createContainer({ pod_sandbox_id: sandboxId, config: cConfig, sandbox_config: config });
    let status = (await h.client.containerStatus({ container_id: containerId })).status!;
    assert.equal(status.state, 'CONTAINER_CREATED');
    assert.equal(status.started_at, 0);
    assert.deepEqual(status.labels, cConfig.labels);
    assert.deepEqual(status.annotations, cConfig.annotations);
    assert.equal(status.log_path, `${config.log_directory}/app/0.log`);

    await h.client.startContainer({ container_id: containerId });
    status = (await h.client.containerStatus({ container_id: containerId })).status!;
    assert.equal(status.state, 'CONTAINER_RUNNING');
    assert.ok(status.started_at >= status.created_at);

    await h.client.stopContainer({ container_id: containerId, timeout: 10 });
    status = (await h.client.containerStatus({ container_id: containerId })).status!;
    assert.equal(status.state, 'CONTAINER_EXITED');
    assert.equal(status.exit_code, 143, 'SIGTERM ends a process without a trap');
    assert.equal(status.reason, 'Error');
    assert.ok(status.finished_at >= status.started_at);

    await h.client.removeContainer({ container_id: containerId });
    assert.ok(isNotFound(await rejectionOf(h.client.containerStatus({ container_id: containerId }))));

    await h.client.stopPodSandbox({ pod_sandbox_id: sandboxId });
    const stopped = (await h.client.podSandboxStatus({ pod_sandbox_id: sandboxId })).status!;
    assert.equal(stopped.state, 'SANDBOX_NOTREADY');
    assert.equal(stopped.network!.ip, '', 'the IP is reclaimed on stop');

    await h.client.removePodSandbox({ pod_sandbox_id: sandboxId });
    const gone = await rejectionOf(h.client.podSandboxStatus({ pod_sandbox_id: sandboxId }));
    assert.equal(gone.code, GrpcStatus.NOT_FOUND);
  });

  it('gives host-network sandboxes no pod IP and others distinct IPs', async () => {
    const host = await h.client.runPodSandbox({ config: sandboxConfig('host-net', { hostNetwork: true }) });
    const a = await h.client.runPodSandbox({ config: sandboxConfig('ip-a') });
    const b = await h.client.runPodSandbox({ config: sandboxConfig('ip-b') });
    const ipOf = async (id: string) => (await h.client.podSandboxStatus({ pod_sandbox_id: id })).status!.network!.ip;
    assert.equal(await ipOf(host.pod_sandbox_id), '');
    assert.notEqual(await ipOf(a.pod_sandbox_id), await ipOf(b.pod_sandbox_id));
  });

  it('refuses a hostname for a host-network sandbox, as runc does', async () => {
    const err = await rejectionOf(h.client.runPodSandbox({ config: sandboxConfig('host-named', { hostNetwork: true, hostname: 'x' }) }));
    assert.equal(err.code, GrpcStatus.UNKNOWN);
    assert.match(String(err.details), /unable to set hostname without a private UTS namespace/);
  });

  it('treats repeated stops and removes as success, and a stop of an unknown ID too', async () => {
    const { sandboxId, containerId } = await runningContainer('idem', ['sleep', '3600']);
    await h.client.stopContainer({ container_id: containerId, timeout: 0 });
    await h.client.stopContainer({ container_id: containerId, timeout: 0 });
    await h.client.stopPodSandbox({ pod_sandbox_id: sandboxId });
    await h.client.stopPodSandbox({ pod_sandbox_id: sandboxId });
    await h.client.removeContainer({ container_id: containerId });
    await h.client.removeContainer({ container_id: containerId });
    await h.client.removePodSandbox({ pod_sandbox_id: sandboxId });
    await h.client.removePodSandbox({ pod_sandbox_id: sandboxId });
    // The CRI's idempotent stops (containerd 1.7+, CRI-O); containerd 1.6 answers NotFound, which callers tolerate.
    await h.client.stopContainer({ container_id: containerId, timeout: 0 });
    await h.client.stopPodSandbox({ pod_sandbox_id: sandboxId });
  });

  it('kills running containers when their sandbox stops', async () => {
    const { sandboxId, containerId } = await runningContainer('stop-kills', ['sleep', 'infinity']);
    await h.client.stopPodSandbox({ pod_sandbox_id: sandboxId });
    const status = (await h.client.containerStatus({ container_id: containerId })).status!;
    assert.equal(status.state, 'CONTAINER_EXITED');
    assert.equal(status.exit_code, 137);
  });

  it('removes a sandbox together with its containers, forcing a stop', async () => {
    const { sandboxId, containerId } = await runningContainer('remove-all', ['sleep', '3600']);
    await h.client.removePodSandbox({ pod_sandbox_id: sandboxId });
    const left = await h.client.listContainers({ filter: { pod_sandbox_id: sandboxId } });
    assert.deepEqual(left.containers, []);
    assert.ok(isNotFound(await rejectionOf(h.client.containerStatus({ container_id: containerId }))));
  });

  it('reports a container that exits 1 with its code, reason and times', async () => {
    const { containerId } = await runningContainer('crasher', ['sh', '-c', 'exit 1']);
    const status = await eventually(async () => {
      const s = (await h.client.containerStatus({ container_id: containerId })).status!;
      return s.state === 'CONTAINER_EXITED' ? s : undefined;
    });
    assert.equal(status.exit_code, 1);
    assert.equal(status.reason, 'Error');
    assert.ok(status.finished_at >= status.started_at && status.started_at > 0);
  });

  it('completes a `true` container with exit code 0', async () => {
    const { containerId } = await runningContainer('oneshot', ['true']);
    const status = await eventually(async () => {
      const s = (await h.client.containerStatus({ container_id: containerId })).status!;
      return s.state === 'CONTAINER_EXITED' ? s : undefined;
    });
    assert.equal(status.exit_code, 0);
    assert.equal(status.reason, 'Completed');
  });

  it('kills a container that traps SIGTERM only at the end of the grace period', async () => {
    const { containerId } = await runningContainer('stubborn', ['sh', '-c', "trap 'echo bye' TERM; sleep 3600"]);
    await h.client.stopContainer({ container_id: containerId, timeout: 1 });
    const status = (await h.client.containerStatus({ container_id: containerId })).status!;
    assert.equal(status.state, 'CONTAINER_EXITED');
    assert.equal(status.exit_code, 137);
  });

  it('refuses to start a container that is not in the created state', async () => {
    const { containerId } = await runningContainer('twice', ['sleep', '3600']);
    const err = await rejectionOf(h.client.startContainer({ container_id: containerId }));
    assert.equal(err.code, GrpcStatus.UNKNOWN);
    assert.match(String(err.details), /CONTAINER_RUNNING/);
    assert.ok(isNotFound(await rejectionOf(h.client.startContainer({ container_id: 'f'.repeat(64) }))));
  });

  it('refuses containers in a stopped sandbox, with a missing image, or with a name already used', async () => {
    const config = sandboxConfig('refusals');
    const { pod_sandbox_id: sandboxId } = await h.client.runPodSandbox({ config });
    const missingImage = await rejectionOf(
      h.client.createContainer({ pod_sandbox_id: sandboxId, config: containerConfig('app', ['true'], { image: 'never-pulled:1' }) }),
    );
    assert.equal(missingImage.code, GrpcStatus.NOT_FOUND);
    assert.match(String(missingImage.details), /failed to get image "never-pulled:1".*not found/);

    await h.client.createContainer({ pod_sandbox_id: sandboxId, config: containerConfig('app', ['true']) });
    const duplicate = await rejectionOf(h.client.createContainer({ pod_sandbox_id: sandboxId, config: containerConfig('app', ['true']) }));
    assert.match(String(duplicate.details), /reserve container name/);
    await h.client.createContainer({ pod_sandbox_id: sandboxId, config: containerConfig('app', ['true'], { attempt: 1 }) });

    await h.client.stopPodSandbox({ pod_sandbox_id: sandboxId });
    const notReady = await rejectionOf(h.client.createContainer({ pod_sandbox_id: sandboxId, config: containerConfig('late', ['true']) }));
    assert.notEqual(notReady.code, GrpcStatus.NOT_FOUND);
    assert.match(String(notReady.details), /SANDBOX_NOTREADY/);
  });

  it('refuses a second sandbox with the same metadata and attempt', async () => {
    await h.client.runPodSandbox({ config: sandboxConfig('dup') });
    const err = await rejectionOf(h.client.runPodSandbox({ config: sandboxConfig('dup') }));
    assert.match(String(err.details), /reserve sandbox name/);
    const retry = await h.client.runPodSandbox({ config: sandboxConfig('dup', { attempt: 1 }) });
    const status = (await h.client.podSandboxStatus({ pod_sandbox_id: retry.pod_sandbox_id })).status!;
    assert.equal(status.metadata!.attempt, 1);
  });

  it('runs exec probes in running containers only', async () => {
    const { containerId } = await runningContainer('probed', ['sleep', '3600']);
    assert.equal((await h.client.execSync({ container_id: containerId, cmd: ['cat', '/etc/hostname'] })).exit_code, 0);
    assert.equal((await h.client.execSync({ container_id: containerId, cmd: ['sh', '-c', 'exit 3'] })).exit_code, 3);
    await h.client.stopContainer({ container_id: containerId, timeout: 0 });
    const err = await rejectionOf(h.client.execSync({ container_id: containerId, cmd: ['true'] }));
    assert.match(String(err.details), /CONTAINER_EXITED/);
  });

  it('answers Version and Status as containerd does', async () => {
    const version = await h.client.version();
    assert.equal(version.runtime_name, 'shardlet-sim');
    assert.equal(version.runtime_api_version, 'v1');
    const conditions = (await h.client.status()).status!.conditions;
    assert.deepEqual(
      conditions.map((c) => [c.type, c.status]),
      [
        ['RuntimeReady', true],
        ['NetworkReady', true],
      ],
    );
  });

  it('OOM-kills a running process once UpdateContainerResources lowers its memory limit below what it holds', async () => {
    const { containerId } = await runningContainer('oom-update', ['sh', '-c', 'dd if=/dev/zero of=/dev/null bs=20M']);
    await h.client.updateContainerResources({ container_id: containerId, linux: { memory_limit_in_bytes: 64 * 1024 * 1024 } });
    assert.equal((await h.client.containerStatus({ container_id: containerId })).status?.state, 'CONTAINER_RUNNING', '20 MiB fits in 64 MiB');
    await h.client.updateContainerResources({ container_id: containerId, linux: { memory_limit_in_bytes: 15 * 1024 * 1024 } });
    const status = (await h.client.containerStatus({ container_id: containerId })).status!;
    assert.deepEqual([status.state, status.exit_code, status.reason], ['CONTAINER_EXITED', 137, 'OOMKilled']);
  });
});

