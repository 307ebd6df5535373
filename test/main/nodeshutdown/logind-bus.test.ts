// systemd-logind through systemd's own tools (busctl, systemd-inhibit) against a
// private bus with a fake logind that holds real inhibitor file descriptors: the
// delay property, the drop-in and logind's reload, a delay lock taken and
// released, the PrepareForShutdown watch; and what the tools' output looks like.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import {
  INHIBIT_WHO,
  INHIBIT_WHY,
  KUBELET_LOGIND_CONF,
  parseBusctlJson,
  parsePrepareForShutdown,
  SystemdLogindBus,
} from '../../../src/main/nodeshutdown/logind-bus.js';
import { GroupChild } from '../../../src/main/nodeshutdown/process-group.js';
import { waitUntil } from '../../helpers/kubelet-process.js';
import { startPrivateLogind, type PrivateLogind } from '../../helpers/private-logind.js';

let logind: PrivateLogind;

before(async () => {
  logind = await startPrivateLogind({ inhibitDelayMaxSec: 5 });
  process.env.DBUS_SYSTEM_BUS_ADDRESS = logind.address;
});

after(async () => {
  await logind?.stop();
});

test('busctl output: values and PrepareForShutdown signals are read from its JSON; anything else is no signal', () => {
  assert.equal(parseBusctlJson('{"type":"t","data":5000000}\n'), 5_000_000);
  assert.deepEqual(parseBusctlJson('{"type":"b","data":[false]}'), [false]);
  assert.throws(() => parseBusctlJson('Failed to connect to bus'));
  const signal = (member: string, payload: unknown) =>
    JSON.stringify({ type: 'signal', sender: ':1.3', path: '/org/freedesktop/login1', interface: 'org.freedesktop.login1.Manager', member, payload });
  const cases: Array<{ line: string; want: boolean | undefined }> = [
    { line: signal('PrepareForShutdown', { type: 'b', data: [true] }), want: true },
    { line: signal('PrepareForShutdown', { type: 'b', data: [false] }), want: false },
    { line: signal('PrepareForSleep', { type: 'b', data: [true] }), want: undefined },
    { line: signal('PrepareForShutdown', { type: 's', data: ['true'] }), want: undefined },
    { line: signal('PrepareForShutdown', { type: 'b', data: [] }), want: undefined },
    { line: 'Monitoring bus message stream.', want: undefined },
    { line: '{"type":"method_call","member":"PrepareForShutdown"}', want: undefined },
  ];
  for (const { line, want } of cases) assert.equal(parsePrepareForShutdown(line), want, line);
});

test('logind on the private bus: present, its delay read, raised through the drop-in and a reload', async () => {
  const bus = new SystemdLogindBus(logind.confDir);
  assert.deepEqual(await bus.presence(), { available: true });
  assert.equal(await bus.inhibitDelayMaxUsec(), 5_000_000);
  await bus.overrideInhibitDelay(10);
  assert.match(readFileSync(join(logind.confDir, KUBELET_LOGIND_CONF), 'utf8'), /^\[Login\]\nInhibitDelayMaxSec=10\n/m);
  await bus.reloadLogindConf();
  const reload = await logind.waitFor((event) => event.event === 'kill-unit', 'KillUnit');
  assert.deepEqual({ unit: reload.unit, who: reload.who, signal: reload.signal }, { unit: 'systemd-logind.service', who: 'all', signal: 1 });
  assert.equal(await bus.inhibitDelayMaxUsec(), 10_000_000);
});

test('a delay lock for shutdown is held by systemd-inhibit until released, and the watch sees PrepareForShutdown', async () => {
  const bus = new SystemdLogindBus(logind.confDir);
  const lock = await bus.inhibitShutdown();
  const taken = await logind.waitFor((event) => event.event === 'inhibit', 'Inhibit');
  assert.deepEqual({ what: taken.what, who: taken.who, why: taken.why, mode: taken.mode }, { what: 'shutdown', who: INHIBIT_WHO, why: INHIBIT_WHY, mode: 'delay' });
  assert.equal(INHIBIT_WHY, 'Kubelet needs time to handle node shutdown');

  const signals: boolean[] = [];
  const watch = await bus.monitorShutdown((active) => signals.push(active), () => undefined);
  logind.prepareForShutdown(true);
  await waitUntil(async () => signals.length === 1, 10_000, 'the PrepareForShutdown(true) signal');
  logind.prepareForShutdown(false);
  await waitUntil(async () => signals.length === 2, 10_000, 'the PrepareForShutdown(false) signal');
  assert.deepEqual(signals, [true, false]);

  assert.equal(logind.events.some((event) => event.event === 'released' && event.id === taken.id), false, 'still held');
  await lock.release();
  await logind.waitFor((event) => event.event === 'released' && event.id === taken.id, 'the lock released');
  await watch.stop();
});

test('without a system bus, or without logind on it, logind is reported unavailable', async () => {
  const bus = new SystemdLogindBus(logind.confDir);
  const saved = process.env.DBUS_SYSTEM_BUS_ADDRESS;
  try {
    process.env.DBUS_SYSTEM_BUS_ADDRESS = `unix:path=${join(logind.confDir, 'no-such-socket')}`;
    const noBus = await bus.presence();
    assert.equal(noBus.available, false);
    assert.match(!noBus.available ? noBus.reason : '', /^no system bus: /);

    const bare = await startPrivateLogind({ withoutLogind: true });
    try {
      process.env.DBUS_SYSTEM_BUS_ADDRESS = bare.address;
      assert.deepEqual(await bus.presence(), { available: false, reason: 'org.freedesktop.login1 is not on the system bus' });
    } finally {
      await bare.stop();
    }
  } finally {
    process.env.DBUS_SYSTEM_BUS_ADDRESS = saved;
  }
});

test('a child that would outlive its stdin is ended with it, and nothing of its process group is left', async () => {
  const child = new GroupChild('sleep', ['600'], { onLine: () => undefined }, true);
  const pid = child.pid!;
  assert.doesNotThrow(() => process.kill(-pid, 0), 'its group runs');
  await child.stop();
  // The group's SIGKILL lands, and its last processes are reaped, a moment after stop() resolves.
  await waitUntil(async () => !groupExists(pid), 10_000, `the end of process group ${pid}`);
});

function groupExists(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw err;
  }
}

test('the watch ends by itself when the bus goes away (the manager then starts over)', async () => {
  const doomed = await startPrivateLogind();
  const saved = process.env.DBUS_SYSTEM_BUS_ADDRESS;
  try {
    process.env.DBUS_SYSTEM_BUS_ADDRESS = doomed.address;
    const watch = await new SystemdLogindBus(doomed.confDir).monitorShutdown(() => undefined, () => undefined);
    await doomed.stop();
    assert.match(await watch.ended, /^busctl monitor exited/);
  } finally {
    process.env.DBUS_SYSTEM_BUS_ADDRESS = saved;
    await doomed.stop();
  }
});
