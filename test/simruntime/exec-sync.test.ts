// ExecSync on the simulated runtime with the CRI contract exec probes rely on:
// stdout and stderr bytes and the exit code of the command, the files the
// container's own script made, and a command outliving req.timeout answered with
// DeadlineExceeded. Also the streaming calls' checks before a URL is handed out.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { containerConfig, rejectionOf, sandboxConfig, startHarness, TEST_IMAGE, type SimHarness } from './harness.js';

describe('simulated runtime: ExecSync and the streaming calls', () => {
  let h: SimHarness;
  let containerId: string;
  let sandboxId: string;
  before(async () => {
    h = await startHarness();
    await h.client.pullImage({ image: { image: TEST_IMAGE } });
    const config = sandboxConfig('exec');
    sandboxId = (await h.client.runPodSandbox({ config })).pod_sandbox_id;
    containerId = (
      await h.client.createContainer({
        pod_sandbox_id: sandboxId,
        config: containerConfig('app', ['sh', '-c', 'echo ready > /tmp/state; touch /tmp/healthy; sleep 3600']),
        sandbox_config: config,
      })
    ).container_id;
    await h.client.startContainer({ container_id: containerId });
  });
  after(async () => h.close());

  it('answers with the output bytes and the exit code', async () => {
    const ok = await h.client.execSync({ container_id: containerId, cmd: ['sh', '-c', 'cat /tmp/state; echo warn >&2'] });
    assert.equal(ok.stdout.toString(), 'ready\n');
    assert.equal(ok.stderr.toString(), 'warn\n');
    assert.equal(ok.exit_code, 0);
    const probe = await h.client.execSync({ container_id: containerId, cmd: ['cat', '/tmp/healthy'] });
    assert.equal(probe.exit_code, 0);
    const missing = await h.client.execSync({ container_id: containerId, cmd: ['cat', '/tmp/absent'] });
    assert.equal(missing.exit_code, 1);
    assert.equal(missing.stderr.toString(), "cat: can't open '/tmp/absent': No such file or directory\n");
  });

  it('keeps what one exec wrote for the next one', async () => {
    await h.client.execSync({ container_id: containerId, cmd: ['rm', '/tmp/healthy'] });
    assert.equal((await h.client.execSync({ container_id: containerId, cmd: ['test', '-f', '/tmp/healthy'] })).exit_code, 1);
    await h.client.execSync({ container_id: containerId, cmd: ['touch', '/tmp/healthy'] });
    assert.equal((await h.client.execSync({ container_id: containerId, cmd: ['test', '-f', '/tmp/healthy'] })).exit_code, 0);
  });

  it('answers DeadlineExceeded when the command outlives its timeout', async () => {
    const err = await rejectionOf(h.client.execSync({ container_id: containerId, cmd: ['sleep', '30'], timeout: 1 }));
    assert.equal(err.code, GrpcStatus.DEADLINE_EXCEEDED);
    assert.match(String(err.details), /timeout 1s exceeded/);
  });

  it('hands out one-time streaming URLs, and checks streams and state first', async () => {
    const { url } = await h.client.exec({ container_id: containerId, cmd: ['echo', 'hi'], stdout: true });
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/exec\/[\w-]+$/);
    const attach = await h.client.attach({ container_id: containerId, stdin: true, stdout: true });
    assert.match(attach.url, /\/attach\//);
    const forward = await h.client.portForward({ pod_sandbox_id: sandboxId, port: [8080] });
    assert.match(forward.url, /\/portforward\//);
    // A token serves once: the second request for it finds nothing.
    assert.equal((await fetch(url)).status, 400);
    assert.equal((await fetch(url)).status, 404);
    const noStreams = await rejectionOf(h.client.exec({ container_id: containerId, cmd: ['true'] }));
    assert.equal(noStreams.code, GrpcStatus.INVALID_ARGUMENT);
    const unknownContainer = await rejectionOf(h.client.exec({ container_id: 'nope', cmd: ['true'], stdout: true }));
    assert.equal(unknownContainer.code, GrpcStatus.NOT_FOUND);
  });
});
