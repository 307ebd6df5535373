// A SPDY/3 session over an upgraded socket, either end: the peer's streams
// arrive as 'stream' events (server side: exec's stdin/stdout/…, port-forward's
// data/error pairs) and openStream() makes our own (client side: tests and the
// containerd e2e). Each stream is a Duplex: what is written goes out as DATA
// frames, a FIN from the peer ends its readable side. Flow control is not done:
// spdystream (the Go end of every Kubernetes client and runtime) neither sends
// nor honours WINDOW_UPDATE.
import { EventEmitter } from 'node:events';
import { Duplex } from 'node:stream';
import { RST_CANCEL, SpdyFrameReader, SpdyFrameWriter, type SpdyFrame, type SpdyHeaders } from './spdy-frames.js';

/** Largest DATA frame written; SPDY allows 16 MiB, spdystream reads any. */
const MAX_DATA_FRAME_BYTES = 32 * 1024;

export class SpdyStream extends Duplex {
  private replied = false;
  private readonly replyWaiters: Array<() => void> = [];

  constructor(
    private readonly connection: SpdyConnection,
    readonly id: number,
    readonly headers: SpdyHeaders,
  ) {
    super({ allowHalfOpen: true });
  }

  /** Accepts a stream the peer opened (spdystream's client waits for this reply). */
  reply(headers: SpdyHeaders = {}): void {
    if (this.replied) return;
    this.replied = true;
    this.connection.send(this.connection.writer.synReply(this.id, headers));
  }

  /** Resolves when the peer replied to a stream we opened. */
  whenReplied(): Promise<void> {
    return this.replied ? Promise.resolve() : new Promise((resolve) => this.replyWaiters.push(resolve));
  }

  /** Ends the stream at once with RST_STREAM. */
  reset(): void {
    this.connection.send(this.connection.writer.rstStream(this.id, RST_CANCEL));
    this.destroy();
  }

  /** @internal */
  onFrame(frame: SpdyFrame): void {
    if (frame.kind === 'syn_reply') {
      this.replied = true;
      for (const resolve of this.replyWaiters.splice(0)) resolve();
    }
    if (frame.kind === 'data' && frame.data.length > 0) this.push(frame.data);
    if (frame.kind === 'rst_stream') {
      this.push(null);
      this.destroy();
      return;
    }
    if ('fin' in frame && frame.fin) this.push(null);
  }

  override _read(): void {}

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    for (let offset = 0; offset < chunk.length; offset += MAX_DATA_FRAME_BYTES) {
      this.connection.send(this.connection.writer.data(this.id, chunk.subarray(offset, offset + MAX_DATA_FRAME_BYTES), false));
    }
    callback();
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.connection.send(this.connection.writer.data(this.id, Buffer.alloc(0), true));
    callback();
  }
}

export interface SpdyConnectionEvents {
  stream: [SpdyStream];
  close: [];
}

export class SpdyConnection extends EventEmitter<SpdyConnectionEvents> {
  /** @internal shared by the streams: header compression is per connection. */
  readonly writer = new SpdyFrameWriter();
  private readonly reader = new SpdyFrameReader();
  private readonly streams = new Map<number, SpdyStream>();
  private nextStreamId: number;
  private closed = false;

  constructor(
    private readonly socket: Duplex,
    options: { isServer: boolean },
  ) {
    super();
    // Clients open odd stream IDs, servers even ones.
    this.nextStreamId = options.isServer ? 2 : 1;
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('close', () => this.onClose());
    socket.on('error', () => socket.destroy());
  }

  /** Opens a stream with these headers (client side). */
  openStream(headers: SpdyHeaders): SpdyStream {
    const stream = this.track(this.nextStreamId, headers);
    this.nextStreamId += 2;
    this.send(this.writer.synStream(stream.id, headers));
    return stream;
  }

  /** GOAWAY, then the socket ends once written. */
  close(): void {
    if (this.closed) return;
    this.send(this.writer.goAway(0));
    this.socket.end();
  }

  /** Drops the socket at once. */
  destroy(): void {
    this.socket.destroy();
  }

  /** @internal */
  send(frame: Buffer): void {
    if (!this.closed && this.socket.writable) this.socket.write(frame);
  }

  private track(id: number, headers: SpdyHeaders): SpdyStream {
    const stream = new SpdyStream(this, id, headers);
    this.streams.set(id, stream);
    stream.on('close', () => this.streams.delete(id));
    return stream;
  }

  private onData(chunk: Buffer): void {
    let frames: SpdyFrame[];
    try {
      frames = this.reader.feed(chunk);
    } catch {
      this.socket.destroy();
      return;
    }
    for (const frame of frames) this.dispatch(frame);
  }

  private dispatch(frame: SpdyFrame): void {
    switch (frame.kind) {
      case 'syn_stream': {
        const stream = this.track(frame.streamId, frame.headers);
        this.emit('stream', stream);
        if (frame.fin) stream.onFrame(frame);
        return;
      }
      case 'ping':
        this.send(this.writer.ping(frame.id));
        return;
      case 'goaway':
        this.socket.end();
        return;
      case 'other':
        return;
      default:
        this.streams.get(frame.streamId)?.onFrame(frame);
    }
  }

  private onClose(): void {
    if (this.closed) return;
    this.closed = true;
    for (const stream of this.streams.values()) stream.destroy();
    this.streams.clear();
    this.emit('close');
  }
}
