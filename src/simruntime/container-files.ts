// The files a simulated container has, as far as exec commands can see them: a
// few the image and the runtime provide (/etc/hostname, /etc/hosts,
// /etc/resolv.conf, /etc/passwd and /etc/group, the sandbox's sysctls under
// /proc/sys), those the container's own script writes (`touch
// /tmp/healthy; sleep 30; rm -f /tmp/healthy`, applied at the time the script
// would reach them), and those exec commands write. Kept per container record in
// a WeakMap, so a removed container's files go with it.
import { accountFiles, formatId, formatWhoami, identityOf, ROOT_IDENTITY, type ProcessIdentity } from './container-identity.js';
import type { ContainerRecord, SandboxRecord } from './state-store.js';
import { parseScript, shellScript } from './shell-words.js';

/** Directories every busybox image has (`ls /`). */
const IMAGE_DIRECTORIES = ['/bin', '/dev', '/etc', '/home', '/proc', '/root', '/sys', '/tmp', '/usr', '/var'];

interface TimedEffect {
  atMs: number;
  /** Works on the file table itself: an effect must not trigger the catch-up it is part of. */
  apply(contentByPath: Map<string, string>): void;
}

export class ContainerFiles {
  private readonly contentByPath = new Map<string, string>();
  private pending: TimedEffect[] = [];

  constructor(
    initial: Record<string, string> = {},
    pending: TimedEffect[] = [],
    /** Who the container's processes run as (what `id` shows). */
    readonly identity: ProcessIdentity = ROOT_IDENTITY,
  ) {
    for (const [path, content] of Object.entries(initial)) this.contentByPath.set(path, content);
    this.pending = pending.sort((a, b) => a.atMs - b.atMs);
  }

  /** Content of a regular file, or undefined. */
  read(path: string): string | undefined {
    this.catchUp();
    return this.contentByPath.get(normalize(path));
  }

  isFile(path: string): boolean {
    return this.read(path) !== undefined;
  }

  isDirectory(path: string): boolean {
    this.catchUp();
    const dir = normalize(path);
    if (dir === '/' || IMAGE_DIRECTORIES.includes(dir)) return true;
    return [...this.contentByPath.keys()].some((file) => file.startsWith(`${dir}/`));
  }

  write(path: string, content: string, append = false): void {
    this.catchUp();
    const file = normalize(path);
    if (file === '/dev/null') return;
    this.contentByPath.set(file, append ? (this.contentByPath.get(file) ?? '') + content : content);
  }

  /** True when something was removed. */
  remove(path: string): boolean {
    this.catchUp();
    return this.contentByPath.delete(normalize(path));
  }

  /** Entry names directly under a directory, sorted as ls prints them. */
  list(path: string): string[] {
    this.catchUp();
    const dir = normalize(path);
    const prefix = dir === '/' ? '/' : `${dir}/`;
    const names = new Set<string>();
    if (dir === '/') for (const sub of IMAGE_DIRECTORIES) names.add(sub.slice(1));
    for (const file of this.contentByPath.keys()) {
      if (file.startsWith(prefix)) names.add(file.slice(prefix.length).split('/')[0]);
    }
    return [...names].sort();
  }

  /** Applies the container script's effects whose time has come. */
  private catchUp(): void {
    const now = Date.now();
    while (this.pending.length > 0 && this.pending[0].atMs <= now) this.pending.shift()!.apply(this.contentByPath);
  }
}

function normalize(path: string): string {
  const parts: string[] = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') parts.pop();
    else parts.push(part);
  }
  return `/${parts.join('/')}`;
}

const filesByContainer = new WeakMap<ContainerRecord, ContainerFiles>();

/** The container's files, created on first use from what the image, runtime and its script provide. */
export function filesOf(container: ContainerRecord, sandbox: SandboxRecord | undefined): ContainerFiles {
  let files = filesByContainer.get(container);
  if (!files) {
    const startedAtMs = container.startedAtNs > 0 ? container.startedAtNs / 1_000_000 : Date.now();
    files = new ContainerFiles(
      { ...accountFiles(), ...runtimeFiles(sandbox), ...sysctlFiles(sandbox) },
      scriptEffects([...container.config.command, ...container.config.args], startedAtMs),
      identityOf(container.config.linux?.security_context),
    );
    filesByContainer.set(container, files);
  }
  return files;
}

/** What a command substitution in the container's own script prints: `id …`, `whoami`, `hostname`, `cat FILE`. */
export function commandSubstitution(files: ContainerFiles): (command: string) => string | undefined {
  return (command) => {
    const [name, ...args] = command.split(/\s+/);
    if (name === 'id') return formatId(args, files.identity).stdout;
    if (name === 'whoami') return formatWhoami(files.identity).stdout;
    if (name === 'hostname') return files.read('/etc/hostname');
    if (name === 'cat' && args.length === 1) return files.read(args[0]);
    return undefined;
  };
}

/** What containerd mounts into every container of a pod. */
function runtimeFiles(sandbox: SandboxRecord | undefined): Record<string, string> {
  const hostname = sandbox?.config.hostname || sandbox?.metadata.name || 'localhost';
  const dns = sandbox?.config.dns_config;
  const resolv = [
    ...(dns?.servers ?? []).map((server) => `nameserver ${server}`),
    ...(dns?.searches?.length ? [`search ${dns.searches.join(' ')}`] : []),
    ...(dns?.options?.length ? [`options ${dns.options.join(' ')}`] : []),
  ];
  return {
    '/etc/hostname': `${hostname}\n`,
    '/etc/hosts': `127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n${sandbox?.ip ? `${sandbox.ip}\t${hostname}\n` : ''}`,
    '/etc/resolv.conf': resolv.length ? `${resolv.join('\n')}\n` : '',
  };
}

/** The sandbox's sysctls as /proc/sys files (`kernel.shm_rmid_forced` → /proc/sys/kernel/shm_rmid_forced), as runc sets them. */
function sysctlFiles(sandbox: SandboxRecord | undefined): Record<string, string> {
  const files: Record<string, string> = {};
  for (const [key, value] of Object.entries(sandbox?.config.linux?.sysctls ?? {})) {
    files[`/proc/sys/${key.replaceAll('.', '/')}`] = `${value}\n`;
  }
  return files;
}

/**
 * The file effects of a container's `sh -c` script, each at the time the script
 * reaches it (the sum of the sleeps before it). A loop or a condition ends the
 * reading: what follows depends on things the sim does not run.
 */
export function scriptEffects(argv: readonly string[], startedAtMs: number): TimedEffect[] {
  const script = shellScript(argv);
  if (script === undefined) return [];
  const list = parseScript(script);
  if ('error' in list) return [];
  const effects: TimedEffect[] = [];
  let atMs = startedAtMs;
  for (const { pipeline } of list) {
    for (const { argv: words, stdoutTo } of pipeline) {
      const [name, ...args] = words;
      if (['while', 'until', 'if', 'for', 'case'].includes(name)) return effects;
      if (name === 'sleep') {
        const seconds = Number(args[0]);
        if (!Number.isFinite(seconds)) return effects;
        atMs += seconds * 1000;
      } else if (name === 'touch') {
        for (const path of args.map(normalize)) effects.push({ atMs, apply: (files) => files.has(path) || files.set(path, '') });
      } else if (name === 'rm') {
        for (const path of args.filter((arg) => !arg.startsWith('-')).map(normalize)) effects.push({ atMs, apply: (files) => files.delete(path) });
      } else if (name === 'echo' && stdoutTo) {
        const text = `${args.join(' ')}\n`;
        const path = normalize(stdoutTo.path);
        effects.push({ atMs, apply: (files) => files.set(path, (stdoutTo.append ? (files.get(path) ?? '') : '') + text) });
      }
    }
  }
  return effects;
}
