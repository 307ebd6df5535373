// systemd-logind on the system bus, as upstream's nodeshutdown/systemd DBusCon:
// InhibitDelayMaxUSec, the InhibitDelayMaxSec drop-in and logind's reload, a
// delay inhibitor lock, and the PrepareForShutdown signal. Node cannot hold the
// file descriptor logind's Inhibit returns without a native addon, so the D-Bus
// work is done by systemd's own tools, which come with logind wherever it exists:
// `busctl` (calls and properties with JSON output; `monitor` for the signal) and
// `systemd-inhibit`, which holds the lock for as long as the command it runs
// lives. Every tool honours DBUS_SYSTEM_BUS_ADDRESS, so tests point them at a
// private bus.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ErrorCodes, ShardletError } from '../../shared/errors.js';
import { GroupChild, isCommandMissing, runCommand, type CommandResult } from './process-group.js';

const LOGIND_SERVICE = 'org.freedesktop.login1';
const LOGIND_OBJECT = '/org/freedesktop/login1';
const LOGIND_MANAGER = 'org.freedesktop.login1.Manager';
const SYSTEMD_SERVICE = 'org.freedesktop.systemd1';
const SYSTEMD_OBJECT = '/org/freedesktop/systemd1';
const SYSTEMD_MANAGER = 'org.freedesktop.systemd1.Manager';
/** Upstream's kubeletLogindConf, the drop-in's file name. */
export const KUBELET_LOGIND_CONF = '99-kubelet.conf';
/** The inhibitor's who and why, as upstream's InhibitShutdown names them. */
export const INHIBIT_WHO = 'kubelet';
export const INHIBIT_WHY = 'Kubelet needs time to handle node shutdown';
const SIGHUP = 1;
/** A busctl call's own D-Bus timeout, and the most a run of busctl may take. */
const BUSCTL_CALL_TIMEOUT_SECONDS = 10;
const BUSCTL_RUN_TIMEOUT_MS = 15_000;
/** How long systemd-inhibit may take to hold the lock. */
const INHIBIT_TIMEOUT_MS = 15_000;
/** The command systemd-inhibit runs: says it holds the lock, then lives until its stdin closes. */
const HOLD_COMMAND = ['/bin/sh', '-c', 'echo held; exec cat >/dev/null'];
const HELD_LINE = 'held';
/** What `busctl monitor` writes to stderr once the bus made it a monitor. */
const MONITORING_LINE = /Monitoring bus message stream/;
/** Older or quieter busctl builds may say nothing: a monitor still running after this is taken as ready. */
const MONITOR_READY_FALLBACK_MS = 3_000;

export type LogindPresence = { available: true } | { available: false; reason: string };

/** A held delay lock; release() ends it. */
export interface InhibitLock {
  release(): Promise<void>;
  /** Resolves if the lock ended without release() (systemd-inhibit died). */
  readonly lost: Promise<string>;
}

/** A running watch of PrepareForShutdown. */
export interface ShutdownWatch {
  stop(): Promise<void>;
  /** Resolves when the watch ended by itself (the bus went away), with why. */
  readonly ended: Promise<string>;
}

/** The seam the node shutdown manager talks to; tests swap in a fake. */
export interface LogindBus {
  presence(): Promise<LogindPresence>;
  /** InhibitDelayMaxUSec, in microseconds. */
  inhibitDelayMaxUsec(): Promise<number>;
  /** Writes the drop-in that raises InhibitDelayMaxSec (upstream's OverrideInhibitDelay). */
  overrideInhibitDelay(seconds: number): Promise<void>;
  /** SIGHUP to systemd-logind.service through systemd's KillUnit, so it reads the drop-in (upstream's ReloadLogindConf). */
  reloadLogindConf(): Promise<void>;
  /** A delay inhibitor lock for shutdown (upstream's InhibitShutdown). */
  inhibitShutdown(): Promise<InhibitLock>;
  /** Watches PrepareForShutdown; resolves once the watch is in place (upstream's MonitorShutdown). */
  monitorShutdown(onSignal: (active: boolean) => void, onIgnoredLine: (line: string) => void): Promise<ShutdownWatch>;
}

/** The drop-in's text: the delay logind may grant, in whole seconds. */
export function logindDropIn(seconds: number): string {
  return `# Written by the kubelet (shardlet) for graceful node shutdown\n[Login]\nInhibitDelayMaxSec=${Math.ceil(seconds)}\n`;
}

/** The value of `busctl --json=short` output ({"type":"t","data":5000000}); throws when it is not one. */
export function parseBusctlJson(stdout: string): unknown {
  const parsed = JSON.parse(stdout) as { type?: unknown; data?: unknown };
  if (typeof parsed?.type !== 'string' || !('data' in parsed)) throw new Error(`not a busctl value: ${stdout.slice(0, 200)}`);
  return parsed.data;
}

/** PrepareForShutdown's argument from one line of `busctl --json=short monitor`, or undefined for any other line. */
export function parsePrepareForShutdown(line: string): boolean | undefined {
  let message: { type?: unknown; interface?: unknown; member?: unknown; payload?: { type?: unknown; data?: unknown } };
  try {
    message = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (message?.type !== 'signal' || message.interface !== LOGIND_MANAGER || message.member !== 'PrepareForShutdown') return undefined;
  const data = message.payload?.type === 'b' ? message.payload.data : undefined;
  return Array.isArray(data) && typeof data[0] === 'boolean' ? data[0] : undefined;
}

export class SystemdLogindBus implements LogindBus {
  constructor(private readonly dropInDir: string) {}

  async presence(): Promise<LogindPresence> {
    let owned: CommandResult;
    try {
      owned = await busctl(['call', 'org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus', 'NameHasOwner', 's', LOGIND_SERVICE]);
    } catch (err) {
      if (isCommandMissing(err)) return { available: false, reason: 'busctl (systemd) is not installed' };
      throw err;
    }
    if (owned.exitCode !== 0) return { available: false, reason: `no system bus: ${firstLine(owned.stderr)}` };
    if (replyArguments(owned)[0] === true) return { available: true };
    // Not running yet, but systemd starts logind on the first call to it.
    const activatable = checked(await busctl(['call', 'org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus', 'ListActivatableNames']), 'ListActivatableNames');
    const names = replyArguments(activatable)[0];
    if (Array.isArray(names) && names.includes(LOGIND_SERVICE)) return { available: true };
    return { available: false, reason: `${LOGIND_SERVICE} is not on the system bus` };
  }

  async inhibitDelayMaxUsec(): Promise<number> {
    const result = checked(await busctl(['get-property', LOGIND_SERVICE, LOGIND_OBJECT, LOGIND_MANAGER, 'InhibitDelayMaxUSec']), 'reading InhibitDelayMaxUSec');
    const value = parseBusctlJson(result.stdout);
    if (typeof value !== 'number') throw failed(`InhibitDelayMaxUSec is not a number: ${result.stdout.trim()}`);
    return value;
  }

  async overrideInhibitDelay(seconds: number): Promise<void> {
    const file = join(this.dropInDir, KUBELET_LOGIND_CONF);
    try {
      await mkdir(this.dropInDir, { recursive: true, mode: 0o755 });
      await writeFile(file, logindDropIn(seconds), { mode: 0o644 });
    } catch (err) {
      throw failed(`failed writing logind shutdown inhibit override file ${file}: ${(err as Error).message}`);
    }
  }

  async reloadLogindConf(): Promise<void> {
    const args = ['call', SYSTEMD_SERVICE, SYSTEMD_OBJECT, SYSTEMD_MANAGER, 'KillUnit', 'ssi', 'systemd-logind.service', 'all', String(SIGHUP)];
    checked(await busctl(args), 'unable to reload logind conf');
  }

  inhibitShutdown(): Promise<InhibitLock> {
    const args = ['--what=shutdown', `--who=${INHIBIT_WHO}`, `--why=${INHIBIT_WHY}`, '--mode=delay', ...HOLD_COMMAND];
    return new Promise((resolve, reject) => {
      let held = false;
      const child = new GroupChild('systemd-inhibit', args, {
        onLine: (line) => {
          if (held || line.trim() !== HELD_LINE) return;
          held = true;
          clearTimeout(timer);
          const lost = child.exited.then(({ exitCode, stderr }) => `systemd-inhibit exited (${exitCode ?? 'signal'}): ${firstLine(stderr)}`);
          resolve({ release: () => child.stop(), lost });
        },
      });
      const timer = setTimeout(() => {
        void child.stop();
        reject(failed(`systemd-inhibit did not take the lock within ${INHIBIT_TIMEOUT_MS} ms`));
      }, INHIBIT_TIMEOUT_MS);
      void child.exited.then(({ exitCode, stderr }) => {
        if (held) return;
        clearTimeout(timer);
        reject(failed(`failed creating systemd inhibitor: ${firstLine(stderr) || `systemd-inhibit exited with ${exitCode ?? 'a signal'}`}`));
      });
    });
  }

  monitorShutdown(onSignal: (active: boolean) => void, onIgnoredLine: (line: string) => void): Promise<ShutdownWatch> {
    const match = `type='signal',sender='${LOGIND_SERVICE}',path='${LOGIND_OBJECT}',interface='${LOGIND_MANAGER}',member='PrepareForShutdown'`;
    return new Promise((resolve, reject) => {
      let ready = false;
      const child = new GroupChild(
        'busctl',
        ['--system', '--json=short', `--match=${match}`, 'monitor'],
        {
          onLine: (line) => {
            const active = parsePrepareForShutdown(line);
            if (active === undefined) onIgnoredLine(line);
            else onSignal(active);
          },
          onStderr: (stderr) => {
            if (MONITORING_LINE.test(stderr)) markReady();
          },
        },
        true,
      );
      // Its first stderr line is the "Monitoring" notice: the last one says why it ended.
      const ended = child.exited.then(({ exitCode, stderr }) => `busctl monitor exited (${exitCode ?? 'signal'}): ${stderr.trim().split('\n').at(-1) ?? ''}`);
      const fallback = setTimeout(markReady, MONITOR_READY_FALLBACK_MS);
      function markReady(): void {
        if (ready) return;
        ready = true;
        clearTimeout(fallback);
        resolve({ stop: () => child.stop(), ended });
      }
      void ended.then((why) => {
        if (ready) return;
        ready = true;
        clearTimeout(fallback);
        reject(failed(`failed to monitor shutdown: ${why}`));
      });
    });
  }
}

/** A method reply's arguments: `busctl call` writes them as the data array. */
function replyArguments(result: CommandResult): unknown[] {
  const data = parseBusctlJson(result.stdout);
  if (!Array.isArray(data)) throw failed(`not a method reply: ${result.stdout.trim().slice(0, 200)}`);
  return data;
}

function busctl(args: string[]): Promise<CommandResult> {
  return runCommand('busctl', ['--system', '--json=short', `--timeout=${BUSCTL_CALL_TIMEOUT_SECONDS}`, ...args], BUSCTL_RUN_TIMEOUT_MS);
}

/** The result of a busctl run that must have worked; otherwise a coded error with what busctl said. */
function checked(result: CommandResult, what: string): CommandResult {
  if (result.exitCode !== 0) throw failed(`${what}: ${firstLine(result.stderr) || `busctl exited with ${result.exitCode ?? 'a signal'}`}`);
  return result;
}

function failed(message: string): ShardletError {
  return new ShardletError(ErrorCodes.NODE_SHUTDOWN_FAILED, message);
}

function firstLine(text: string): string {
  return text.trim().split('\n')[0] ?? '';
}
