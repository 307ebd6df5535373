// What a simulated container prints, read off its command line, and the CRI log
// file the sim writes for it, with ReopenContainerLog's contract.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, renameSync } from 'node:fs';
import { test } from 'node:test';
import { outputOf } from '../../src/simruntime/container-output.js';
import { parseCriLogLine } from '../../src/shared/logs/cri-log-format.js';
import { containerConfig, eventually, rejectionOf, sandboxConfig, startHarness, TEST_IMAGE } from './harness.js';

test('echo lines at start, a loop per period, lines after a sleep at the exit', () => {
  assert.deepEqual(outputOf(['sh', '-c', 'echo hello; sleep 3600'], []), { atStart: [{ stream: 'stdout', text: 'hello' }], atExit: [] });
  assert.deepEqual(outputOf(['sh', '-c'], ["echo 'a  b' >&2 && echo x > /tmp/f; sleep 1; echo bye; exit 1"]), {
    atStart: [{ stream: 'stderr', text: 'a  b' }],
    atExit: [{ stream: 'stdout', text: 'bye' }],
  });
  assert.deepEqual(outputOf(['/bin/sh', '-c', 'echo up; while true; do echo "tick $i"; sleep 2; done'], []), {
    atStart: [{ stream: 'stdout', text: 'up' }],
    loop: { lines: [{ stream: 'stdout', text: 'tick $i' }], periodMs: 2000 },
    atExit: [],
  });
  assert.deepEqual(outputOf(['echo', 'plain'], []), { atStart: [{ stream: 'stdout', text: 'plain' }], atExit: [] });
  assert.deepEqual(outputOf(['nginx'], []), { atStart: [], atExit: [] });
});

test('the sim writes CRI records at log_directory/log_path and reopens only running containers', async () => {
  const harness = await startHarness();
  try {
    const { client } = harness;
    await client.pullImage({ image: { image: TEST_IMAGE } });
    const config = sandboxConfig('logs', { uid: `uid-logs-${process.pid}` });
    config.log_directory = `${harness.socketPath}-logs`;
    mkdirSync(`${config.log_directory}/main`, { recursive: true });
    const { pod_sandbox_id } = await client.runPodSandbox({ config });
    const create = async (command: string[], name: string) => {
      const { container_id } = await client.createContainer({ pod_sandbox_id, config: { ...containerConfig(name, command), log_path: `main/${name}.log` }, sandbox_config: config });
      await client.startContainer({ container_id });
      return container_id;
    };
    const looping = await create(['sh', '-c', 'echo start; while true; do echo tick; sleep 0.05; done'], 'loop');
    const logPath = (await client.containerStatus({ container_id: looping })).status!.log_path;
    assert.equal(logPath, `${config.log_directory}/main/loop.log`);
    const texts = (path: string) => readFileSync(path, 'utf8').split('\n').filter(Boolean).map((line) => parseCriLogLine(Buffer.from(line))!.content.toString());
    await eventually(async () => (texts(logPath).length >= 3 ? true : undefined));
    assert.deepEqual(texts(logPath).slice(0, 3), ['start', 'tick', 'tick']);
    renameSync(logPath, `${logPath}.1`);
    await client.reopenContainerLog({ container_id: looping });
    await eventually(async () => (texts(logPath).length >= 1 ? true : undefined));
    assert.ok(texts(logPath).every((text) => text === 'tick'));

    const exited = await create(['sh', '-c', 'echo one; exit 1'], 'exits');
    await eventually(async () => ((await client.containerStatus({ container_id: exited })).status?.state === 'CONTAINER_EXITED' ? true : undefined));
    assert.deepEqual(texts(`${config.log_directory}/main/exits.log`), ['one']);
    const refused = await rejectionOf(client.reopenContainerLog({ container_id: exited }));
    assert.match(String(refused.details ?? refused.message), /not running/);
  } finally {
    await harness.close();
  }
});
