// Which container instance a log request reads, and upstream's messages when none.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { logContainerId } from '../../../src/main/logs/log-container-id.js';
import type { ContainerStatus, PodStatus } from '../../../src/shared/types.js';

const status = (container: Partial<ContainerStatus>): PodStatus => ({
  containerStatuses: [{ name: 'main', image: 'busybox', imageID: '', ready: false, restartCount: 0, ...container }],
});
const terminated = (containerID: string) => ({ terminated: { exitCode: 1, containerID } });

test('a table of states, as upstream validateContainerLogStatus', () => {
  const cases: Array<[string, PodStatus | undefined, boolean, ReturnType<typeof logContainerId>]> = [
    ['running', status({ containerID: 'containerd://run', state: { running: {} } }), false, { containerId: 'run' }],
    ['previous', status({ containerID: 'containerd://run', state: { running: {} }, lastState: terminated('containerd://old') }), true, { containerId: 'old' }],
    ['no previous', status({ state: { running: {} }, containerID: 'containerd://run' }), true, { error: 'previous terminated container "main" in pod "p" not found' }],
    ['terminated', status({ state: terminated('containerd://done') }), false, { containerId: 'done' }],
    ['terminated, next not started', status({ state: terminated(''), lastState: terminated('containerd://old') }), false, { containerId: 'old' }],
    ['crash loop', status({ state: { waiting: { reason: 'CrashLoopBackOff' } }, lastState: terminated('containerd://old') }), false, { containerId: 'old' }],
    ['image pull', status({ state: { waiting: { reason: 'ImagePullBackOff' } } }), false, { error: 'container "main" in pod "p" is waiting to start: trying and failing to pull image' }],
    ['creating', status({ state: { waiting: { reason: 'ContainerCreating' } } }), false, { error: 'container "main" in pod "p" is waiting to start: ContainerCreating' }],
    ['no status', undefined, false, { error: 'container "main" in pod "p" is not available' }],
  ];
  for (const [name, podStatus, previous, expected] of cases) assert.deepEqual(logContainerId(podStatus, 'main', 'p', previous), expected, name);
});
