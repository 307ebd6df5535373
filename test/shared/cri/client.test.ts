// CriClient against the simulated runtime over a real unix socket: endpoints,
// deadlines, error codes kept from gRPC, and calls that overlap.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { fromWire, toWire } from '../../../src/shared/errors.js';
import { CriClient, CriError, isNotFound, isUnavailable, isUnimplemented, normalizeEndpoint } from '../../../src/shared/cri/client.js';
import { rejectionOf, sandboxConfig, startHarness, tempSocketPath, TEST_IMAGE, containerConfig, type SimHarness } from '../../simruntime/harness.js';

describe('CriClient', () => {
  const harnesses: SimHarness[] = [];
  async function harness(...args: Parameters<typeof startHarness>): Promise<SimHarness> {
    const h = await startHarness(...args);
    harnesses.push(h);
    return h;
  }
  after(async () => {
    for (const h of harnesses) await h.close();
  });

  it('accepts unix:// endpoints and bare absolute paths', async () => {
    assert.equal(normalizeEndpoint('/run/containerd/containerd.sock'), 'unix:///run/containerd/containerd.sock');
    assert.equal(normalizeEndpoint('unix:///run/crio/crio.sock'), 'unix:///run/crio/crio.sock');
    const h = await harness();
    const bare = new CriClient(h.socketPath, { timeoutMs: 5_000 });
    try {
      assert.equal((await bare.version()).runtime_name, 'shardlet-sim');
      assert.equal(bare.endpoint, `unix://${h.socketPath}`);
    } finally {
      bare.close();
    }
  });

  it('rejects with a CriError that keeps the gRPC code and details', async () => {
    const h = await harness();
    const err = await rejectionOf(h.client.containerStatus({ container_id: 'no-such-container' }));
    assert.ok(err instanceof CriError);
    assert.equal(err.code, GrpcStatus.NOT_FOUND);
    assert.match(String(err.details), /no-such-container.*not found/);
    assert.equal(err.method, 'RuntimeService/ContainerStatus');
    assert.ok(isNotFound(err));
    // A NotFound that crossed a thread as a WireError is still recognised.
    assert.ok(isNotFound(fromWire(toWire(err))));
    assert.ok(!isNotFound(new Error('plain')));
  });

  it('fails fast with UNAVAILABLE when the socket does not exist', async () => {
    const { socketPath } = tempSocketPath();
    const client = new CriClient(`unix://${socketPath}`, { timeoutMs: 5_000 });
    try {
      const err = await rejectionOf(client.version());
      assert.ok(isUnavailable(err), `code ${err.code}`);
    } finally {
      client.close();
    }
  });

  it('puts a deadline on every call', async () => {
    const h = await harness({ scale: 1, jitter: 0, callLatencyMs: { Version: 2_000 } }, {}, 100);
    const err = await rejectionOf(h.client.version());
    assert.equal(err.code, GrpcStatus.DEADLINE_EXCEEDED);
    // An explicit per-call deadline overrides the default.
    assert.equal((await h.client.version({}, 5_000)).runtime_api_version, 'v1');
  });

  it("extends StopContainer's deadline by the grace period", async () => {
    const h = await harness({ scale: 0 }, {}, 300);
    await h.client.pullImage({ image: { image: TEST_IMAGE } });
    const { pod_sandbox_id } = await h.client.runPodSandbox({ config: sandboxConfig('grace') });
    const { container_id } = await h.client.createContainer({
      pod_sandbox_id,
      config: containerConfig('stubborn', ['sh', '-c', "trap '' TERM; sleep 3600"]),
    });
    await h.client.startContainer({ container_id });
    // The process ignores SIGTERM, so the stop takes the full second: longer than 300 ms.
    await h.client.stopContainer({ container_id, timeout: 1 });
    assert.equal((await h.client.containerStatus({ container_id })).status!.exit_code, 137);
  });

  it('reports GetContainerEvents as unimplemented, as containerd 1.6 does', async () => {
    const h = await harness({ scale: 0 }, { containerEvents: false });
    const err = await rejectionOf((async () => {
      for await (const event of h.client.getContainerEvents()) assert.fail(`unexpected event ${JSON.stringify(event)}`);
    })());
    assert.ok(isUnimplemented(err));
  });

  it('lets calls overlap instead of queueing them', async () => {
    const h = await harness({ scale: 1, jitter: 0, callLatencyMs: { RunPodSandbox: 300 } });
    const calls = 20;
    await Promise.all(Array.from({ length: calls }, (_, i) => h.client.runPodSandbox({ config: sandboxConfig(`par-${i}`) })));
    const stats = h.sim.stats();
    assert.equal(stats.calls.RunPodSandbox, calls);
    assert.equal(stats.maxInFlight, calls, 'all calls were in the runtime at once');
  });
});
