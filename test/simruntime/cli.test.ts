// shardlet-sim-runtime's --personality as an operator starts it: the process
// answers as the named runtime, and a name it does not know ends it with usage.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { CriClient } from '../../src/shared/cri/client.js';
import { PACKAGE_ROOT, signalGroup } from '../helpers/kubelet-process.js';
import { eventually, tempSocketPath } from './harness.js';

const CLI = join(PACKAGE_ROOT, 'dist/src/simruntime/cli.js');

test('--personality crio: GetContainerEvents ends at once, empty, as CRI-O without enable_pod_events', async () => {
  const { socketPath } = tempSocketPath();
  const child = spawn(process.execPath, [CLI, '--socket', socketPath, '--latency-scale', '0', '--personality', 'crio'], {
    stdio: ['ignore', 'pipe', 'inherit'],
    detached: true,
  });
  const cri = new CriClient(`unix://${socketPath}`, { timeoutMs: 5_000 });
  try {
    await eventually(async () => (existsSync(socketPath) ? true : undefined));
    const events: unknown[] = [];
    for await (const event of cri.getContainerEvents({})) events.push(event);
    assert.deepEqual(events, []);
  } finally {
    cri.close();
    await signalGroup(child, 'SIGTERM');
  }
});

test('an unknown --personality, or --pod-events without crio, ends it with exit 2 and the choices', () => {
  const { socketPath } = tempSocketPath();
  const unknown = spawnSync(process.execPath, [CLI, '--socket', socketPath, '--personality', 'docker'], { encoding: 'utf8' });
  assert.equal(unknown.status, 2);
  assert.match(unknown.stderr, /--personality must be one of containerd-1\.6, containerd-2, crio/);
  const podEvents = spawnSync(process.execPath, [CLI, '--socket', socketPath, '--personality', 'containerd-2', '--pod-events'], { encoding: 'utf8' });
  assert.equal(podEvents.status, 2);
  assert.match(podEvents.stderr, /--pod-events needs --personality crio/);
});
