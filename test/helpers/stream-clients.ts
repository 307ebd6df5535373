// Clients of the Kubernetes streaming protocols, as kubectl speaks them, for
// tests: exec over a websocket (channel framing written here: one byte of
// channel, then data; v5's close signal on channel 255) and exec and
// port-forward over SPDY/3.1 (the project's SPDY framing, client side).
import { connect, type Socket } from 'node:net';
import { WebSocket } from 'ws';
import { SpdyConnection, type SpdyStream } from '../../src/simruntime/streaming/spdy-connection.js';

export interface ExecResult {
  stdout: string;
  stderr: string;
  /** What arrived on the error channel: a Status JSON from v4 on, '' when nothing came. */
  error: string;
}

/** Runs an exec session over a websocket and collects its channels until the server closes. */
export async function websocketExec(url: string, options: { protocol?: string; stdin?: string } = {}): Promise<ExecResult> {
  const protocol = options.protocol ?? 'v5.channel.k8s.io';
  const ws = new WebSocket(url.replace(/^http/, 'ws'), [protocol]);
  const channels: string[] = ['', '', '', ''];
  const base64 = protocol.includes('base64');
  ws.on('message', (message: Buffer, isBinary: boolean) => {
    const channel = base64 && !isBinary ? Number(message.toString()[0]) : message[0];
    const data = base64 && !isBinary ? Buffer.from(message.toString().slice(1), 'base64') : message.subarray(1);
    if (channel < channels.length) channels[channel] += data.toString();
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
    ws.once('unexpected-response', (_req, res) => reject(new Error(`websocket upgrade refused: ${res.statusCode}`)));
  });
  if (options.stdin !== undefined) {
    ws.send(Buffer.concat([Buffer.from([0]), Buffer.from(options.stdin)]));
    // v5's close signal for stdin: the command sees EOF.
    if (protocol.startsWith('v5.')) ws.send(Buffer.from([255, 0]));
  }
  await new Promise<void>((resolve) => ws.once('close', () => resolve()));
  return { stdout: channels[1], stderr: channels[2], error: channels[3] };
}

export interface SpdyUpgrade {
  statusCode: number;
  /** Response header lines, lower-cased names. */
  headers: Record<string, string>;
  /** What the server sent after its headers (a refusal's body). */
  body: string;
  connection?: SpdyConnection;
  socket: Socket;
}

/** Sends the upgrade request kubectl sends and reads the answer; a 101 gives a client SPDY connection. */
export async function spdyUpgrade(url: string, protocols: string[], method = 'POST'): Promise<SpdyUpgrade> {
  const target = new URL(url);
  const socket = connect({ host: target.hostname, port: Number(target.port) });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  socket.write(
    `${method} ${target.pathname}${target.search} HTTP/1.1\r\nHost: ${target.host}\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n` +
      protocols.map((protocol) => `X-Stream-Protocol-Version: ${protocol}\r\n`).join('') +
      'Authorization: Bearer test-secret\r\nContent-Length: 0\r\n\r\n',
  );
  let received = Buffer.alloc(0);
  const headEnd = await new Promise<number>((resolve, reject) => {
    const onData = (chunk: Buffer): void => {
      received = Buffer.concat([received, chunk]);
      const end = received.indexOf('\r\n\r\n');
      if (end === -1) return;
      socket.off('data', onData);
      socket.pause();
      resolve(end);
    };
    socket.on('data', onData);
    socket.once('close', () => reject(new Error(`connection closed before an answer: ${received.toString()}`)));
  });
  const [statusLine, ...headerLines] = received.subarray(0, headEnd).toString().split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  const statusCode = Number(statusLine.split(' ')[1]);
  const rest = received.subarray(headEnd + 4);
  if (statusCode !== 101) {
    const body = await new Promise<string>((resolve) => {
      let text = rest.toString();
      socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
      socket.on('close', () => resolve(text));
      socket.resume();
    });
    return { statusCode, headers, body, socket };
  }
  if (rest.length > 0) socket.unshift(rest);
  const connection = new SpdyConnection(socket, { isServer: false });
  socket.resume();
  return { statusCode, headers, body: '', connection, socket };
}

function collect(stream: SpdyStream): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
    stream.on('end', () => resolve(text));
    stream.on('close', () => resolve(text));
  });
}

/** An exec session over SPDY, its streams opened as kubectl opens them (error first). */
export async function spdyExec(url: string, options: { protocol?: string; stdin?: string; stderr?: boolean } = {}): Promise<ExecResult> {
  const upgrade = await spdyUpgrade(url, [options.protocol ?? 'v4.channel.k8s.io']);
  if (!upgrade.connection) throw new Error(`SPDY upgrade refused: ${upgrade.statusCode} ${upgrade.body}`);
  const connection = upgrade.connection;
  const open = (streamType: string): SpdyStream => connection.openStream({ streamtype: streamType });
  const error = open('error');
  const stdin = options.stdin !== undefined ? open('stdin') : undefined;
  const stdout = open('stdout');
  const stderr = options.stderr ? open('stderr') : undefined;
  const results = Promise.all([collect(stdout), stderr ? collect(stderr) : Promise.resolve(''), collect(error)]);
  await Promise.all([error, stdin, stdout, stderr].filter((stream) => stream !== undefined).map((stream) => stream.whenReplied()));
  if (stdin) stdin.end(options.stdin);
  const [out, err, status] = await results;
  connection.destroy();
  return { stdout: out, stderr: err, error: status };
}

/** One connection forwarded over SPDY: sends `request` to the pod's port and returns all it answered. */
export async function spdyPortForward(url: string, port: number, request: string): Promise<{ data: string; error: string }> {
  const upgrade = await spdyUpgrade(url, ['portforward.k8s.io']);
  if (!upgrade.connection) throw new Error(`SPDY upgrade refused: ${upgrade.statusCode} ${upgrade.body}`);
  const connection = upgrade.connection;
  const error = connection.openStream({ streamtype: 'error', port: String(port), requestid: '0' });
  const data = connection.openStream({ streamtype: 'data', port: String(port), requestid: '0' });
  const results = Promise.all([collect(data), collect(error)]);
  await Promise.all([error.whenReplied(), data.whenReplied()]);
  error.end();
  data.write(request);
  const [answer, errorText] = await results;
  connection.destroy();
  return { data: answer, error: errorText };
}
