// Reads a kubelet streaming request off its path and query, as upstream's
// server.go routes and remotecommand's NewOptions / portforward's NewV4Options
// read them: /exec|/attach/{namespace}/{pod}[/{uid}]/{container} with `command`
// (repeated), `stdin`, `stdout`, `stderr`, `tty` ("1" is true); /portForward/
// {namespace}/{pod}[/{uid}] with `port`; /run/{namespace}/{pod}[/{uid}]/{container}
// with `cmd` split on spaces.

export type StreamKind = 'exec' | 'attach' | 'portForward' | 'run';

export interface StreamTarget {
  kind: StreamKind;
  namespace: string;
  podName: string;
  /** '' when the path names no UID. */
  podUid: string;
  /** '' for portForward. */
  containerName: string;
}

export interface StreamOptions {
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
  tty: boolean;
}

/** A request the kubelet answers itself, with upstream's status and message. */
export interface StreamFailure {
  statusCode: number;
  message: string;
}

export const KIND_BY_PREFIX: Readonly<Record<string, StreamKind>> = {
  exec: 'exec',
  attach: 'attach',
  portForward: 'portForward',
  run: 'run',
};

/** go-restful's answer to a path no route serves. */
export const NOT_FOUND: StreamFailure = { statusCode: 404, message: '404 page not found' };

/** The pod and container a path names, or undefined when it has the wrong shape (404). */
export function parseStreamPath(pathname: string): StreamTarget | undefined {
  const segments = pathname.split('/').slice(1);
  if (segments.at(-1) === '') segments.pop();
  const kind = KIND_BY_PREFIX[segments[0] ?? ''];
  if (!kind) return undefined;
  let parts: string[];
  try {
    parts = segments.slice(1).map((segment) => decodeURIComponent(segment));
  } catch {
    return undefined;
  }
  if (parts.some((part) => part === '')) return undefined;
  if (kind === 'portForward') {
    if (parts.length !== 2 && parts.length !== 3) return undefined;
    return { kind, namespace: parts[0], podName: parts[1], podUid: parts[2] ?? '', containerName: '' };
  }
  if (parts.length !== 3 && parts.length !== 4) return undefined;
  const [namespace, podName] = parts;
  return { kind, namespace, podName, podUid: parts.length === 4 ? parts[2] : '', containerName: parts.at(-1)! };
}

/** remotecommand's NewOptions: a TTY carries no separate stderr; one stream at least. */
export function parseStreamOptions(query: URLSearchParams): StreamOptions | StreamFailure {
  const flag = (name: string): boolean => query.get(name) === '1';
  const tty = flag('tty');
  const options = { stdin: flag('stdin'), stdout: flag('stdout'), stderr: flag('stderr') && !tty, tty };
  if (!options.stdin && !options.stdout && !options.stderr) {
    return { statusCode: 400, message: 'you must specify at least 1 of stdin, stdout, stderr' };
  }
  return options;
}

/**
 * portforward's NewV4Options: ports are read (and required) only for a websocket
 * request; over SPDY each stream names its port.
 */
export function parsePortForwardPorts(query: URLSearchParams, isWebSocket: boolean): number[] | StreamFailure {
  if (!isWebSocket) return [];
  const values = query.getAll('port');
  if (values.length === 0) return { statusCode: 400, message: 'query parameter "port" is required' };
  const ports: number[] = [];
  for (const value of values) {
    if (value === '') return { statusCode: 400, message: 'query parameter "port" cannot be empty' };
    for (const part of value.split(',')) {
      const port = /^\d+$/.test(part) ? Number(part) : NaN;
      if (!(port <= 65_535)) return { statusCode: 400, message: `unable to parse "${value}" as a port: invalid syntax` };
      if (port < 1) return { statusCode: 400, message: `port "${value}" must be > 0` };
      ports.push(port);
    }
  }
  return ports;
}

/** /run's `cmd`, split on single spaces as upstream does. */
export function parseRunCommand(query: URLSearchParams): string[] {
  return (query.get('cmd') ?? '').split(' ');
}

export function isFailure<T extends object>(value: T | StreamFailure): value is StreamFailure {
  return 'statusCode' in value && 'message' in value;
}
