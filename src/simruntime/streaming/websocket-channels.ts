// Exec/attach over a websocket, as upstream's wsstream speaks it: every message
// is one channel's data, its first byte the channel (0 stdin, 1 stdout, 2 stderr,
// 3 error, 4 resize) — or, for the base64 protocols, a text message whose first
// character is the channel digit followed by the data in base64. v5 adds the
// close signal: channel 255 with the closed channel's number (stdin's EOF).
import { PassThrough } from 'node:stream';
import type { WebSocket } from 'ws';
import { encodeExitStatus, type RemoteCommandStreams } from './remote-command.js';

export const CHANNEL_STDIN = 0;
export const CHANNEL_STDOUT = 1;
export const CHANNEL_STDERR = 2;
export const CHANNEL_ERROR = 3;
export const CHANNEL_RESIZE = 4;
/** v5.channel.k8s.io's "this channel is closed" signal. */
export const CHANNEL_CLOSE = 255;
/** Normal websocket closure. */
const CLOSE_NORMAL = 1000;

export function websocketStreams(
  ws: WebSocket,
  protocol: string,
  options: { stdin: boolean; stdout: boolean; stderr: boolean; cmd: readonly string[] },
): RemoteCommandStreams {
  const base64 = protocol.includes('base64');
  const gone = new AbortController();
  const stdin = options.stdin ? new PassThrough() : undefined;
  const send = (channel: number, data: Buffer | string): void => {
    if (ws.readyState !== ws.OPEN) return;
    const bytes = Buffer.from(data);
    if (base64) ws.send(`${channel}${bytes.toString('base64')}`);
    else ws.send(Buffer.concat([Buffer.from([channel]), bytes]));
  };
  ws.on('message', (message: Buffer, isBinary: boolean) => {
    const frame = base64 && !isBinary ? decodeBase64Frame(message.toString()) : { channel: message[0], data: message.subarray(1) };
    if (frame.channel === CHANNEL_STDIN && frame.data.length > 0) stdin?.write(frame.data);
    else if (frame.channel === CHANNEL_CLOSE && frame.data[0] === CHANNEL_STDIN) stdin?.end();
  });
  ws.on('close', () => {
    stdin?.end();
    gone.abort();
  });
  ws.on('error', () => ws.terminate());
  return {
    stdin,
    stdout: options.stdout ? (chunk) => send(CHANNEL_STDOUT, chunk) : undefined,
    stderr: options.stderr ? (chunk) => send(CHANNEL_STDERR, chunk) : undefined,
    gone: gone.signal,
    finish: (status) => {
      const payload = encodeExitStatus(protocol, status, options.cmd);
      if (payload) send(CHANNEL_ERROR, payload);
      if (ws.readyState === ws.OPEN) ws.close(CLOSE_NORMAL);
    },
  };
}

function decodeBase64Frame(text: string): { channel: number; data: Buffer } {
  return { channel: Number(text[0]), data: Buffer.from(text.slice(1), 'base64') };
}
