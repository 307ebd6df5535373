// Turns a fixture of test/fixtures/real-nodes/ into the kubelet command line the
// node would run: the systemd unit and its drop-ins read as systemd does
// (Environment=, EnvironmentFile=, the last ExecStart=, $VAR split into words,
// ${VAR} not), or k3s's logged argument list, with every absolute path moved into
// a temporary root and every CRI socket pointed at the runtime under test.
import { cpSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const UNIT_PLACES = ['etc/systemd/system/kubelet.service', 'usr/lib/systemd/system/kubelet.service'];
const DROP_IN_DIR = 'etc/systemd/system/kubelet.service.d';
/** A CRI socket in a flag or a config file: unix:///run/containerd/containerd.sock, /var/run/crio/crio.sock. */
const SOCKET = /(unix:\/\/)?\/[^\s"',]*\.sock\b/g;
/** An absolute path of the node's file system, after a separator. */
const NODE_PATH = /(^|[\s="',:[])(\/(?:etc|var|run|usr|opt)\/)/g;

export interface RealNode {
  /** The kubelet's arguments, rewritten. */
  args: string[];
  /** The temporary root the fixture's files were copied to. */
  rootfs: string;
  /** Maps a node path ("/etc/kubernetes/kubelet.conf") into the temporary root. */
  inRoot(path: string): string;
}

/** Copies the fixture into `rootfs`, rewrites its files and returns the rewritten command line. */
export function prepareRealNode(fixtureDir: string, rootfs: string, endpoint: string): RealNode {
  const rewrite = (text: string) => text.replace(SOCKET, endpoint).replace(NODE_PATH, (_, before: string, path: string) => `${before}${rootfs}${path}`);
  cpSync(join(fixtureDir, 'root'), rootfs, { recursive: true });
  for (const file of filesUnder(rootfs)) writeFileSync(file, rewrite(readFileSync(file, 'utf8')));
  const argsFile = join(fixtureDir, 'kubelet.args');
  const args = existsSync(argsFile) ? argsFromList(readFileSync(argsFile, 'utf8')) : argsFromUnit(rootfs);
  return { args: args.map(rewrite), rootfs, inRoot: (path) => join(rootfs, path) };
}

/** The value of `--name=value` or `--name value` in args, if given. */
export function flagValue(args: readonly string[], name: string): string | undefined {
  for (const [index, arg] of args.entries()) {
    if (arg.startsWith(`--${name}=`)) return arg.slice(name.length + 3);
    if (arg === `--${name}`) return args[index + 1];
  }
  return undefined;
}

function argsFromList(text: string): string[] {
  return text.split('\n').map((line) => line.trim()).filter((line) => line !== '' && !line.startsWith('#'));
}

function argsFromUnit(rootfs: string): string[] {
  const unit = UNIT_PLACES.map((place) => join(rootfs, place)).find((path) => existsSync(path));
  if (!unit) throw new Error(`no kubelet.service under ${rootfs}`);
  const dropInDir = join(rootfs, DROP_IN_DIR);
  const dropIns = existsSync(dropInDir) ? readdirSync(dropInDir).filter((name) => name.endsWith('.conf')).sort().map((name) => join(dropInDir, name)) : [];
  const env: Record<string, string> = {};
  let execStart = '';
  for (const file of [unit, ...dropIns]) {
    for (const line of unitLines(readFileSync(file, 'utf8'))) {
      const equals = line.indexOf('=');
      if (equals < 0) continue;
      const key = line.slice(0, equals);
      const value = line.slice(equals + 1);
      if (key === 'Environment') Object.assign(env, parseAssignment(unquote(value)));
      else if (key === 'EnvironmentFile') readEnvironmentFile(rootfs, value, env);
      else if (key === 'ExecStart') execStart = value;
    }
  }
  const words = expandWords(execStart, env);
  // Drop the binary and any wrapper before it (OpenShift's kubenswrapper).
  return words.slice(words.findIndex((word) => word.endsWith('/kubelet')) + 1);
}

/** Lines with `\` continuations joined and comments dropped. */
function unitLines(text: string): string[] {
  return text.replace(/\\\n\s*/g, ' ').split('\n').map((line) => line.trim()).filter((line) => line !== '' && !line.startsWith('#'));
}

function readEnvironmentFile(rootfs: string, value: string, env: Record<string, string>): void {
  const optional = value.startsWith('-');
  const path = optional ? value.slice(1) : value;
  const inRoot = path.startsWith(rootfs) ? path : join(rootfs, path);
  if (!existsSync(inRoot)) {
    if (optional) return;
    throw new Error(`EnvironmentFile ${path} is missing`);
  }
  for (const line of unitLines(readFileSync(inRoot, 'utf8'))) Object.assign(env, parseAssignment(line));
}

function parseAssignment(text: string): Record<string, string> {
  const equals = text.indexOf('=');
  return equals < 0 ? {} : { [text.slice(0, equals)]: unquote(text.slice(equals + 1)) };
}

function unquote(text: string): string {
  return /^(["']).*\1$/.test(text) ? text.slice(1, -1) : text;
}

/** systemd's ExecStart expansion: a word that is exactly $VAR splits into words; ${VAR} substitutes in place. */
function expandWords(command: string, env: Record<string, string>): string[] {
  return command.split(/\s+/).filter((word) => word !== '').flatMap((word) => {
    const whole = /^\$([A-Za-z_][A-Za-z0-9_]*)$/.exec(word);
    if (whole) return (env[whole[1]!] ?? '').split(/\s+/).filter((part) => part !== '');
    return [word.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => env[name] ?? '')];
  });
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}
