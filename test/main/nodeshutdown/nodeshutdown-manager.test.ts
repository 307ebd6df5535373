// The node shutdown manager against a fake logind bus and fake pod workers, as
// upstream's nodeshutdown manager tests: the start sequence (the delay logind
// allows, the drop-in, the failure when logind keeps a smaller delay, no logind at
// all), and on PrepareForShutdown(true) admission refused, the groups killed in
// order with their grace periods, each waiting for its pods or its period, the
// statuses, the lock released last; on false the lock taken again.
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import pino from 'pino';
import type { InhibitLock, LogindBus, LogindPresence, ShutdownWatch } from '../../../src/main/nodeshutdown/logind-bus.js';
import { NodeShutdownManager, type NodeShutdownHost } from '../../../src/main/nodeshutdown/nodeshutdown-manager.js';
import { periodsFromGracePeriods } from '../../../src/main/nodeshutdown/shutdown-groups.js';
import type { Pod } from '../../../src/shared/types.js';

const NODE_CRITICAL = 2_000_001_000;
const USEC_PER_SECOND = 1_000_000;

class FakeBus implements LogindBus {
  readonly calls: string[] = [];
  presenceAnswer: LogindPresence = { available: true };
  delayUsec = 30 * USEC_PER_SECOND;
  /** What a reload sets the delay to; undefined leaves it. */
  delayAfterReloadUsec?: number;
  private signal?: (active: boolean) => void;
  private endWatch?: (why: string) => void;

  async presence(): Promise<LogindPresence> {
    this.calls.push('presence');
    return this.presenceAnswer;
  }
  async inhibitDelayMaxUsec(): Promise<number> {
    this.calls.push('read delay');
    return this.delayUsec;
  }
  async overrideInhibitDelay(seconds: number): Promise<void> {
    this.calls.push(`drop-in ${seconds}s`);
  }
  async reloadLogindConf(): Promise<void> {
    this.calls.push('reload');
    if (this.delayAfterReloadUsec !== undefined) this.delayUsec = this.delayAfterReloadUsec;
  }
  async inhibitShutdown(): Promise<InhibitLock> {
    this.calls.push('lock');
    return { release: async () => void this.calls.push('release'), lost: new Promise<string>(() => undefined) };
  }
  async monitorShutdown(onSignal: (active: boolean) => void): Promise<ShutdownWatch> {
    this.calls.push('watch');
    this.signal = onSignal;
    return { stop: async () => void this.calls.push('unwatch'), ended: new Promise<string>((resolve) => (this.endWatch = resolve)) };
  }
  prepareForShutdown(active: boolean): void {
    this.signal!(active);
  }
  busGone(): void {
    this.endWatch!('bus gone');
  }
}

function pod(name: string, priority?: number, terminationGracePeriodSeconds?: number): Pod {
  return { metadata: { name, namespace: 'default', uid: `uid-${name}` }, spec: { priority, terminationGracePeriodSeconds, containers: [] }, status: { phase: 'Running' } };
}

interface Harness {
  bus: FakeBus;
  manager: NodeShutdownManager;
  /** Pod kills, in order, as "name/grace". */
  kills: string[];
  /** Pods whose status was to be shown again, in order. */
  refreshed: string[];
  nodeStatusSyncs: number;
  logs: Array<Record<string, unknown>>;
}

function harness(pods: Pod[], gracePeriodMs = 10_000, criticalMs = 4_000): Harness & { host: NodeShutdownHost } {
  const logs: Array<Record<string, unknown>> = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void logs.push(JSON.parse(line) as Record<string, unknown>) });
  const bus = new FakeBus();
  const manager = new NodeShutdownManager({ periods: periodsFromGracePeriods(gracePeriodMs, criticalMs), bus, logger, reloadWaitMs: 0 });
  const result = { bus, manager, kills: [] as string[], refreshed: [] as string[], nodeStatusSyncs: 0, logs, host: undefined as unknown as NodeShutdownHost };
  result.host = {
    activePods: () => pods,
    kill: (killed, grace) => void result.kills.push(`${killed.metadata?.name}/${grace}`),
    syncNodeStatus: () => void (result.nodeStatusSyncs += 1),
    refreshStatus: (refreshed) => void result.refreshed.push(refreshed.metadata?.name ?? ''),
    onNodeEvent: (type, reason, message) => void logs.push({ event: `${type} ${reason}: ${message}` }),
  };
  return result;
}

/** Lets the manager's promise chains run (setImmediate is not mocked). */
const settle = async () => {
  for (let round = 0; round < 10; round++) await new Promise((resolve) => setImmediate(resolve));
};

test('start: a delay logind already allows is kept; the lock is taken, then the watch', async () => {
  const h = harness([]);
  await h.manager.start(h.host);
  assert.deepEqual(h.bus.calls, ['presence', 'read delay', 'lock', 'watch']);
});

test('start: a smaller delay is raised through the drop-in and a reload, as upstream', async () => {
  const h = harness([]);
  h.bus.delayUsec = 5 * USEC_PER_SECOND;
  h.bus.delayAfterReloadUsec = 10 * USEC_PER_SECOND;
  await h.manager.start(h.host);
  assert.deepEqual(h.bus.calls, ['presence', 'read delay', 'drop-in 10s', 'reload', 'read delay', 'lock', 'watch']);
});

test("start: logind keeping a smaller delay fails with upstream's message and takes no lock", async () => {
  const h = harness([]);
  h.bus.delayUsec = 5 * USEC_PER_SECOND;
  await h.manager.start(h.host);
  assert.deepEqual(h.bus.calls, ['presence', 'read delay', 'drop-in 10s', 'reload', 'read delay']);
  const failure = h.logs.find((line) => line.msg === 'Failed to start node shutdown manager');
  assert.equal(failure?.err, 'node shutdown manager was unable to update logind InhibitDelayMaxSec to 10s (ShutdownGracePeriod), current value of InhibitDelayMaxSec (5s) is less than requested ShutdownGracePeriod');
  assert.equal(failure?.code, 'SHARDLET_NODE_SHUTDOWN_FAILED');
  assert.equal(failure?.level, 50);
});

test('start: without logind, one info line says graceful node shutdown is unavailable, and nothing else is asked', async () => {
  const h = harness([]);
  h.bus.presenceAnswer = { available: false, reason: 'no system bus: Failed to connect to bus: No such file or directory' };
  await h.manager.start(h.host);
  assert.deepEqual(h.bus.calls, ['presence']);
  const lines = h.logs.filter((line) => line.code === 'SHARDLET_NODE_SHUTDOWN_UNAVAILABLE');
  assert.equal(lines.length, 1);
  assert.equal(lines[0]!.level, 30);
  assert.match(String(lines[0]!.msg), /^Graceful node shutdown is unavailable: no systemd-logind/);
  assert.equal(lines[0]!.shutdownGracePeriodRequested, '10s');
});

test('shutdown: no admission, regular pods first with their share, critical pods once they finished, statuses, then the lock goes', async () => {
  const web = pod('web');
  const quick = pod('quick', 0, 2);
  const etcd = pod('etcd', NODE_CRITICAL);
  const h = harness([web, etcd, quick]);
  await h.manager.start(h.host);
  assert.equal(h.manager.admit(), undefined);

  h.bus.prepareForShutdown(true);
  await settle();
  assert.equal(h.manager.shuttingDown(), true);
  assert.deepEqual(h.manager.admit(), { reason: 'NodeShutdown', message: 'Pod was rejected as the node is shutting down.' });
  assert.equal(h.nodeStatusSyncs, 1, 'the Node shows NotReady at once');
  assert.deepEqual(h.kills, ['web/6', 'quick/2'], 'regular pods first; a shorter own grace period wins');
  assert.deepEqual(h.refreshed, ['web', 'quick'], 'their statuses show the verdict as they start terminating');
  assert.ok(h.logs.some((line) => line.event === 'Normal NodeShutdown: Shutdown manager detected shutdown event'));

  const status = h.manager.statusOf('uid-web', { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] });
  assert.equal(status.phase, 'Failed');
  assert.equal(status.reason, 'Terminated');
  assert.equal(status.message, 'Pod was terminated in response to imminent node shutdown.');
  const disruption = status.conditions?.find((c) => c.type === 'DisruptionTarget');
  assert.deepEqual([disruption?.status, disruption?.reason, disruption?.message], ['True', 'TerminationByKubelet', 'Pod was terminated in response to imminent node shutdown.']);
  assert.equal(h.manager.statusOf('uid-etcd', { phase: 'Running' }).phase, 'Running', 'not killed yet');
  assert.equal(h.manager.statusOf('uid-quick', { phase: 'Succeeded' }).phase, 'Succeeded', 'a pod that succeeded stays so');

  h.manager.podFinished('uid-web');
  await settle();
  assert.deepEqual(h.kills, ['web/6', 'quick/2'], 'the group waits for all its pods');
  h.manager.podFinished('uid-quick');
  await settle();
  assert.deepEqual(h.kills, ['web/6', 'quick/2', 'etcd/4']);
  assert.ok(!h.bus.calls.includes('release'), 'the lock is held while critical pods stop');
  h.manager.podFinished('uid-etcd');
  await settle();
  assert.equal(h.bus.calls.at(-1), 'release');
  assert.ok(h.manager.killedForShutdown('uid-etcd'));
  assert.ok(h.logs.some((line) => line.msg === 'Shutdown manager completed processing shutdown event, node will shutdown shortly'));
});

test('shutdown: a group whose pods do not finish holds the next one only for its own period', async (t: TestContext) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const h = harness([pod('stuck'), pod('etcd', NODE_CRITICAL)]);
  await h.manager.start(h.host);
  h.bus.prepareForShutdown(true);
  await settle();
  assert.deepEqual(h.kills, ['stuck/6']);
  t.mock.timers.tick(5_999);
  await settle();
  assert.deepEqual(h.kills, ['stuck/6']);
  t.mock.timers.tick(1);
  await settle();
  assert.deepEqual(h.kills, ['stuck/6', 'etcd/4']);
  assert.ok(h.logs.some((line) => line.msg === 'Shutdown manager pod killing time out' && line.gracePeriod === 6));
  t.mock.timers.tick(4_000);
  await settle();
  assert.equal(h.bus.calls.at(-1), 'release');
});

test('shutdown with no pods releases the lock at once; a cancellation takes it again and admits pods again', async () => {
  const h = harness([]);
  await h.manager.start(h.host);
  h.bus.prepareForShutdown(true);
  await settle();
  assert.deepEqual(h.bus.calls.slice(-1), ['release']);
  h.bus.prepareForShutdown(false);
  await settle();
  assert.equal(h.manager.shuttingDown(), false);
  assert.equal(h.manager.admit(), undefined);
  assert.deepEqual(h.bus.calls.slice(-1), ['lock']);
  assert.ok(h.logs.some((line) => line.event === 'Normal NodeShutdown: Shutdown manager detected shutdown cancellation'));
});

test('the watch ending (the bus went away) starts everything over after the reconnect period', async (t: TestContext) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const h = harness([]);
  await h.manager.start(h.host);
  h.bus.calls.length = 0;
  h.bus.busGone();
  await settle();
  assert.deepEqual(h.bus.calls, ['release'], 'the old lock goes; the ended watch needs no stopping');
  t.mock.timers.tick(999);
  await settle();
  assert.deepEqual(h.bus.calls, ['release']);
  t.mock.timers.tick(1);
  await settle();
  assert.deepEqual(h.bus.calls, ['release', 'read delay', 'lock', 'watch']);
  await h.manager.stop();
  assert.deepEqual(h.bus.calls.slice(-2), ['unwatch', 'release']);
});
