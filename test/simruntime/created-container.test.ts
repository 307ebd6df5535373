// A container that was created but never started, on the simulated runtime: as
// containerd 1.6 does, StopContainer and StopPodSandbox leave it CREATED (only a
// running or unknown container is stopped), and RemoveContainer or RemovePodSandbox
// take it away. shardlet must not wait for such a container to stop.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { containerConfig, sandboxConfig, startHarness, TEST_IMAGE, type SimHarness } from './harness.js';

describe('simulated runtime: a container created and never started', () => {
  let h: SimHarness;
  before(async () => {
    h = await startHarness();
    await h.client.pullImage({ image: { image: TEST_IMAGE } });
  });
  after(async () => h.close());

  async function createdContainer(pod: string): Promise<{ sandboxId: string; containerId: string }> {
    const config = sandboxConfig(pod);
    const { pod_sandbox_id: sandboxId } = await h.client.runPodSandbox({ config });
    const reply = await h.client.createContainer({ pod_sandbox_id: sandboxId, config: containerConfig('app', ['sleep', '3600']), sandbox_config: config });
    return { sandboxId, containerId: reply.container_id };
  }

  const stateOf = async (containerId: string) => (await h.client.containerStatus({ container_id: containerId })).status!.state;

  it('stays CREATED through StopContainer and StopPodSandbox, as under containerd', async () => {
    const { sandboxId, containerId } = await createdContainer('stopped');
    await h.client.stopContainer({ container_id: containerId, timeout: 2 });
    assert.equal(await stateOf(containerId), 'CONTAINER_CREATED');
    await h.client.stopPodSandbox({ pod_sandbox_id: sandboxId });
    assert.equal(await stateOf(containerId), 'CONTAINER_CREATED');
    await h.client.removeContainer({ container_id: containerId });
    assert.equal((await h.client.listContainers({ filter: { id: containerId } })).containers.length, 0);
  });

  it('goes with its sandbox on RemovePodSandbox', async () => {
    const { sandboxId, containerId } = await createdContainer('removed');
    await h.client.removePodSandbox({ pod_sandbox_id: sandboxId });
    assert.equal((await h.client.listContainers({ filter: { id: containerId } })).containers.length, 0);
  });
});
