// One rotation round against the simulated runtime: only running containers of
// the kubelet's own pods whose log passed the size are rotated, through
// ReopenContainerLog, and a container's log path is asked of the runtime once.
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { pino } from 'pino';
import { ContainerLogManager } from '../../../src/main/logs/container-log-manager.js';
import { containerConfig, sandboxConfig, startHarness, TEST_IMAGE } from '../../simruntime/harness.js';

test('a round rotates what is over the size, of running containers of owned pods only', async () => {
  const harness = await startHarness();
  const { client, sim } = harness;
  try {
    await client.pullImage({ image: { image: TEST_IMAGE } });
    const start = async (name: string, command: string[]) => {
      const config = sandboxConfig(name);
      config.log_directory = join(`${harness.socketPath}-logs`, name);
      mkdirSync(join(config.log_directory, name), { recursive: true });
      const { pod_sandbox_id } = await client.runPodSandbox({ config });
      const { container_id } = await client.createContainer({ pod_sandbox_id, config: containerConfig(name, command, { labels: { 'io.kubernetes.pod.uid': config.metadata!.uid! } }), sandbox_config: config });
      await client.startContainer({ container_id });
      return { dir: join(config.log_directory, name), log: join(config.log_directory, name, '0.log'), uid: config.metadata!.uid! };
    };
    const big = await start('big', ['sleep', 'infinity']);
    const small = await start('small', ['sleep', 'infinity']);
    const foreign = await start('foreign', ['sleep', 'infinity']);
    const exited = await start('exited', ['sh', '-c', 'exit 0']);
    for (const log of [big.log, foreign.log, exited.log]) appendFileSync(log, '2026-11-24T10:00:00Z stdout F x\n'.repeat(100));
    await new Promise((resolve) => setTimeout(resolve, 200)); // the exiting one exits
    const owned = new Set([big.uid, small.uid, exited.uid]);
    const manager = new ContainerLogManager({
      settings: { maxSizeBytes: 1024, maxFiles: 2, maxWorkers: 2, monitorIntervalMs: 10_000 },
      cri: () => client,
      ownsPod: (uid) => owned.has(uid),
      logger: pino({ level: 'silent' }),
    });
    await manager.rotateLogs();
    assert.equal(sim.stats().calls.ReopenContainerLog, 1);
    assert.equal(readdirSync(big.dir).length, 2, 'the live file and the rotated one');
    for (const other of [small, foreign, exited]) assert.deepEqual(readdirSync(other.dir), ['0.log'], other.dir);
    const statusCalls = sim.stats().calls.ContainerStatus;
    await manager.rotateLogs();
    assert.equal(sim.stats().calls.ContainerStatus, statusCalls, 'log paths are remembered');
    assert.equal(sim.stats().calls.ReopenContainerLog, 1, 'the new live file is small');
  } finally {
    await harness.close();
  }
});

test('the log path of a container the kubelet made is where it asked for it; ContainerStatus only where that file is not', async () => {
  const harness = await startHarness();
  const { client, sim } = harness;
  try {
    await client.pullImage({ image: { image: TEST_IMAGE } });
    const podLogsDir = `${harness.socketPath}-pod-logs`;
    const start = async (name: string, logsDir: string) => {
      const config = sandboxConfig(name);
      const meta = config.metadata!;
      config.log_directory = join(logsDir, `${meta.namespace}_${meta.name}_${meta.uid}`);
      mkdirSync(join(config.log_directory, 'app'), { recursive: true });
      const labels = {
        'io.kubernetes.pod.uid': meta.uid!,
        'io.kubernetes.pod.name': meta.name!,
        'io.kubernetes.pod.namespace': meta.namespace!,
        'io.kubernetes.container.name': 'app',
      };
      const container = containerConfig('app', ['sleep', 'infinity'], { labels });
      container.annotations = { 'io.kubernetes.container.restartCount': '0' };
      container.log_path = 'app/0.log';
      const { pod_sandbox_id } = await client.runPodSandbox({ config });
      const { container_id } = await client.createContainer({ pod_sandbox_id, config: container, sandbox_config: config });
      await client.startContainer({ container_id });
      const log = join(config.log_directory, 'app', '0.log');
      appendFileSync(log, '2026-11-24T10:00:00Z stdout F x\n'.repeat(100));
      return { uid: meta.uid!, dir: join(config.log_directory, 'app') };
    };
    const here = await start('here', podLogsDir);
    // Made by a kubelet with another podLogsDir: not where this one would look.
    const elsewhere = await start('elsewhere', `${harness.socketPath}-old-logs`);
    const owned = new Set([here.uid, elsewhere.uid]);
    const manager = new ContainerLogManager({
      settings: { maxSizeBytes: 1024, maxFiles: 2, maxWorkers: 1, monitorIntervalMs: 10_000 },
      cri: () => client,
      ownsPod: (uid) => owned.has(uid),
      podLogsDir,
      logger: pino({ level: 'silent' }),
    });
    const statusCallsBefore = sim.stats().calls.ContainerStatus ?? 0;
    await manager.rotateLogs();
    assert.equal((sim.stats().calls.ContainerStatus ?? 0) - statusCallsBefore, 1, 'asked for the one made elsewhere only');
    assert.equal(sim.stats().calls.ReopenContainerLog, 2, 'both rotated');
    for (const rotated of [here, elsewhere]) assert.equal(readdirSync(rotated.dir).length, 2, rotated.dir);
  } finally {
    await harness.close();
  }
});
