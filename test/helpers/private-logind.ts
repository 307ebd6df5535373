// A private system bus (Debian's dbus-daemon) with a fake systemd-logind on it
// (test/fixtures/nodeshutdown/fake-logind.py, Debian's python3-dbus and
// python3-gi), for the graceful node shutdown tests. The test reads what the fake
// saw (Inhibit calls, locks released, reloads) as events and tells it when to emit
// PrepareForShutdown. Both processes run in process groups of their own and are
// stopped with them; the fake also exits when its stdin closes.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PACKAGE_ROOT, signalGroup, waitUntil } from './kubelet-process.js';

const DBUS_DAEMON = '/usr/bin/dbus-daemon';
/** Debian's python3, which has python3-dbus and python3-gi (not a pyenv one). */
const SYSTEM_PYTHON = '/usr/bin/python3';
const FAKE_LOGIND = join(PACKAGE_ROOT, 'test/fixtures/nodeshutdown/fake-logind.py');
const START_TIMEOUT_MS = 15_000;

/** What the fake logind reports, one object per line. */
export interface FakeLogindEvent {
  event: 'ready' | 'inhibit' | 'released' | 'kill-unit' | 'signal';
  atMs: number;
  [field: string]: unknown;
}

export interface PrivateLogind {
  /** The bus address, for DBUS_SYSTEM_BUS_ADDRESS. */
  address: string;
  /** Where the fake reads logind drop-ins on a reload (give it to shardlet as --logind-conf-dir). */
  confDir: string;
  events: FakeLogindEvent[];
  /** Waits until an event matching `match` arrived (or had arrived) and returns it. */
  waitFor(match: (event: FakeLogindEvent) => boolean, what: string, timeoutMs?: number): Promise<FakeLogindEvent>;
  /** Has logind emit PrepareForShutdown(active). */
  prepareForShutdown(active: boolean): void;
  stop(): Promise<void>;
}

export interface PrivateLogindOptions {
  /** logind's InhibitDelayMaxSec before any drop-in (logind's default is 5). */
  inhibitDelayMaxSec?: number;
  /** A reload (SIGHUP through KillUnit) changes nothing, as a logind whose configuration overrides the drop-in. */
  ignoreReload?: boolean;
  /** Start the bus only, with no logind on it. */
  withoutLogind?: boolean;
}

/** Fails with what to run when a tool the tests need is missing. */
export function assertPrivateLogindTools(): void {
  const onPath = (name: string) => (process.env.PATH ?? '').split(':').some((dir) => dir !== '' && existsSync(join(dir, name)));
  const missing = [DBUS_DAEMON, SYSTEM_PYTHON].filter((path) => !existsSync(path)).concat(['busctl', 'systemd-inhibit'].filter((name) => !onPath(name)));
  if (missing.length > 0) throw new Error(`${missing.join(', ')} missing: run scripts/dbus/setup.sh (Debian's dbus-daemon, python3-dbus, python3-gi, systemd)`);
}

export async function startPrivateLogind(options: PrivateLogindOptions = {}): Promise<PrivateLogind> {
  assertPrivateLogindTools();
  const dir = mkdtempSync(join(tmpdir(), 'shardlet-logind-'));
  const address = `unix:path=${join(dir, 'system_bus_socket')}`;
  const confDir = join(dir, 'logind.conf.d');
  const busConfig = join(dir, 'bus.conf');
  writeFileSync(busConfig, busConfigText(address));
  const daemon = spawn(DBUS_DAEMON, [`--config-file=${busConfig}`, '--nofork', '--nopidfile', '--print-address=1'], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const children: ChildProcess[] = [daemon];
  const stop = async () => {
    for (const child of [...children].reverse()) await signalGroup(child, 'SIGTERM');
  };
  try {
    await waitForOutput(daemon, 'unix:path=', 'dbus-daemon');
    const events: FakeLogindEvent[] = [];
    let fake: ChildProcess | undefined;
    if (!options.withoutLogind) {
      fake = startFake(address, confDir, options, events);
      children.push(fake);
    }
    const waitFor = (match: (event: FakeLogindEvent) => boolean, what: string, timeoutMs = START_TIMEOUT_MS) =>
      waitUntil(async () => events.find(match), timeoutMs, what);
    if (fake) await waitFor((event) => event.event === 'ready', 'the fake logind on the bus');
    return {
      address,
      confDir,
      events,
      waitFor,
      prepareForShutdown: (active) => fake?.stdin!.write(`${JSON.stringify({ cmd: 'prepare-for-shutdown', active })}\n`),
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

function startFake(address: string, confDir: string, options: PrivateLogindOptions, events: FakeLogindEvent[]): ChildProcess {
  const args = [FAKE_LOGIND, `--inhibit-delay-max-sec=${options.inhibitDelayMaxSec ?? 5}`, `--logind-conf-dir=${confDir}`];
  if (options.ignoreReload) args.push('--ignore-reload');
  const fake = spawn(SYSTEM_PYTHON, args, { stdio: ['pipe', 'pipe', 'pipe'], detached: true, env: { ...process.env, DBUS_SYSTEM_BUS_ADDRESS: address } });
  let partial = '';
  fake.stdout!.setEncoding('utf8').on('data', (text: string) => {
    const lines = (partial + text).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) if (line.trim() !== '') events.push(JSON.parse(line) as FakeLogindEvent);
  });
  fake.stderr!.setEncoding('utf8').on('data', (text: string) => process.stderr.write(`fake-logind: ${text}`));
  return fake;
}

function waitForOutput(child: ChildProcess, needle: string, what: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`${what} did not start: ${output}`)), START_TIMEOUT_MS);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (!output.includes(needle)) return;
      clearTimeout(timer);
      resolve();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited with ${code}: ${output}`));
    });
  });
}

/**
 * A bus of its own type (a "system" type would try to raise the fd limit): anyone
 * may own any name and send anything, and a client of the same user may become a
 * monitor (busctl monitor), as root may on the real system bus.
 */
function busConfigText(address: string): string {
  return `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>shardlet-test-system</type>
  <listen>${address}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
  </policy>
</busconfig>
`;
}
