// Lets gRPC clients that name the server by its socket path reach the simulated
// runtime. grpc-go before about 1.52 (crictl 1.26, kubelet ≤ 1.26) and Python gRPC
// ≥ 1.57 send `:authority: /run/x.sock` over unix sockets; nghttp2, under Node's HTTP/2
// server, refuses an authority with a '/' in it and resets the stream (PROTOCOL_ERROR),
// so such a client could never talk to a CRI server written in Node. containerd
// (grpc-go) takes them.
//
// Every accepted connection is read up to its first request's header block. grpc-js
// sends no request before the server's SETTINGS frame, so the sniffer speaks first
// with an empty SETTINGS frame of its own and drops the client's acknowledgement of
// it. When the first block's authority is one nghttp2 takes (grpc-js and newer Go
// clients send `localhost`), the bytes read are put back and the socket goes to
// grpc-js as it is: no cost after the first request (a JS stream in between would
// add about 40 µs of CPU per call and double the latency). Otherwise the connection
// goes through AuthorityRewriter, which re-encodes every header block the client sends
// with `:authority: localhost` and passes every other frame through untouched.
import { createRequire } from 'node:module';
import { Duplex } from 'node:stream';
import type { Socket } from 'node:net';

const requireCjs = createRequire(import.meta.url);
const hpack = requireCjs('hpack.js') as HpackModule;

interface HpackHeader {
  name: string;
  value: string;
}
interface HpackDecompressor {
  write(block: Buffer): void;
  execute(): void;
  read(): HpackHeader | null;
}
interface HpackModule {
  decompressor: { create(options: { table: { size: number } }): HpackDecompressor };
}

/** RFC 9113 §3.4: every client connection starts with these 24 octets. */
const CONNECTION_PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');
const FRAME_HEADER_BYTES = 9;
const FRAME_TYPE_HEADERS = 0x1;
const FRAME_TYPE_SETTINGS = 0x4;
const FRAME_TYPE_CONTINUATION = 0x9;
const FLAG_END_STREAM = 0x1;
const FLAG_ACK = 0x1;
const FLAG_END_HEADERS = 0x4;
const FLAG_PADDED = 0x8;
const FLAG_PRIORITY = 0x20;
const PRIORITY_FIELD_BYTES = 5;
/** SETTINGS_MAX_FRAME_SIZE's initial value: the server never raises it, so re-encoded blocks are cut to it. */
const MAX_FRAME_PAYLOAD_BYTES = 16_384;
/** SETTINGS_HEADER_TABLE_SIZE's initial value, which bounds the client's HPACK dynamic table. */
const HPACK_TABLE_BYTES = 4_096;
/** A SETTINGS frame with no parameters: a valid server connection preface (RFC 9113 §3.4). */
const EMPTY_SETTINGS_FRAME = Buffer.from([0, 0, 0, FRAME_TYPE_SETTINGS, 0, 0, 0, 0, 0]);
export const REWRITTEN_AUTHORITY = 'localhost';

/** nghttp2's check_authority: RFC 3986 authority characters; a '/' (a socket path) is not one. */
const VALID_AUTHORITY = /^[A-Za-z0-9\-._~!$&'()*+,;=:%@[\]]*$/;

export function authorityNghttp2Accepts(authority: string): boolean {
  return VALID_AUTHORITY.test(authority);
}

/** One frame's header and payload, as read from the client. */
export interface Frame {
  type: number;
  flags: number;
  streamId: number;
  payload: Buffer;
  /** The whole frame as it came, for passing through untouched. */
  raw: Buffer;
}

/** Splits a byte stream into HTTP/2 frames; the preface comes out as it came. */
class FrameSplitter {
  /** Octets not yet a whole frame (or the preface). */
  pending: Buffer = Buffer.alloc(0);
  private prefaceSeen = false;

  /** The preface (once, when whole) and the whole frames in `chunk` and what came before it. */
  push(chunk: Buffer): { preface?: Buffer; frames: Frame[] } {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    let preface: Buffer | undefined;
    if (!this.prefaceSeen) {
      if (this.pending.length < CONNECTION_PREFACE.length) return { frames: [] };
      preface = this.pending.subarray(0, CONNECTION_PREFACE.length);
      this.pending = this.pending.subarray(CONNECTION_PREFACE.length);
      this.prefaceSeen = true;
    }
    const frames: Frame[] = [];
    while (this.pending.length >= FRAME_HEADER_BYTES) {
      const total = FRAME_HEADER_BYTES + this.pending.readUIntBE(0, 3);
      if (this.pending.length < total) break;
      const raw = this.pending.subarray(0, total);
      frames.push({ type: raw[3]!, flags: raw[4]!, streamId: raw.readUInt32BE(5) & 0x7fffffff, payload: raw.subarray(FRAME_HEADER_BYTES), raw });
      this.pending = this.pending.subarray(total);
    }
    return { preface, frames };
  }
}

/** A header block being gathered: its HEADERS frame and the CONTINUATIONs after it. */
interface HeaderBlock {
  streamId: number;
  endStream: boolean;
  priority?: Buffer;
  fragments: Buffer[];
}

/** Re-encodes the client's header blocks in order (HPACK state is per connection) with an authority nghttp2 takes. */
export class AuthorityRewriter {
  private readonly decompressor = hpack.decompressor.create({ table: { size: HPACK_TABLE_BYTES } });
  private block?: HeaderBlock;
  /** The authority of the last complete header block. */
  lastAuthority?: string;

  /** What to send the server for one client frame: header blocks come out only once complete. */
  frameOut(frame: Frame): Buffer[] {
    if (frame.type === FRAME_TYPE_HEADERS) {
      this.block = { streamId: frame.streamId, endStream: (frame.flags & FLAG_END_STREAM) !== 0, fragments: [] };
      this.block.fragments.push(headersFragment(frame, this.block));
    } else if (frame.type === FRAME_TYPE_CONTINUATION && this.block) {
      this.block.fragments.push(frame.payload);
    } else {
      return [frame.raw];
    }
    if ((frame.flags & FLAG_END_HEADERS) === 0) return [];
    const block = this.block;
    this.block = undefined;
    return this.reencode(block);
  }

  private reencode(block: HeaderBlock): Buffer[] {
    this.decompressor.write(Buffer.concat(block.fragments));
    this.decompressor.execute();
    const headers: HpackHeader[] = [];
    for (let header = this.decompressor.read(); header; header = this.decompressor.read()) headers.push(header);
    const authority = headers.find((header) => header.name === ':authority');
    this.lastAuthority = authority?.value ?? '';
    if (authority && !authorityNghttp2Accepts(authority.value)) authority.value = REWRITTEN_AUTHORITY;
    return headerFrames(block, encodeLiterals(headers));
  }
}
/** The header block fragment of a HEADERS frame, without padding; its priority fields kept on the block. */
function headersFragment(frame: Frame, block: HeaderBlock): Buffer {
  let start = 0;
  let end = frame.payload.length;
  if (frame.flags & FLAG_PADDED) {
    end -= frame.payload[0]!;
    start += 1;
  }
  if (frame.flags & FLAG_PRIORITY) {
    block.priority = frame.payload.subarray(start, start + PRIORITY_FIELD_BYTES);
    start += PRIORITY_FIELD_BYTES;
  }
  return frame.payload.subarray(start, end);
}

/**
 * HPACK without the dynamic table: every field as a literal without indexing and a
 * new name (RFC 7541 §6.2.2), strings not Huffman-coded. The server's table stays
 * empty, so nothing the client's encoder did carries over.
 */
function encodeLiterals(headers: HpackHeader[]): Buffer {
  const parts: Buffer[] = [];
  for (const { name, value } of headers) {
    parts.push(Buffer.of(0x00), hpackString(name), hpackString(value));
  }
  return Buffer.concat(parts);
}

/** An HPACK string literal: the H bit clear, the length as a 7-bit-prefix integer (RFC 7541 §5.1, §5.2). */
function hpackString(text: string): Buffer {
  const bytes = Buffer.from(text, 'latin1');
  const length: number[] = [];
  let remaining = bytes.length;
  if (remaining < 0x7f) length.push(remaining);
  else {
    length.push(0x7f);
    remaining -= 0x7f;
    while (remaining >= 0x80) {
      length.push((remaining & 0x7f) | 0x80);
      remaining >>>= 7;
    }
    length.push(remaining);
  }
  return Buffer.concat([Buffer.from(length), bytes]);
}

/** A HEADERS frame (with the block's priority and END_STREAM) and CONTINUATIONs, cut to the frame size. */
function headerFrames(block: HeaderBlock, encoded: Buffer): Buffer[] {
  const frames: Buffer[] = [];
  const priority = block.priority ?? Buffer.alloc(0);
  let offset = 0;
  let first = true;
  do {
    const room = MAX_FRAME_PAYLOAD_BYTES - (first ? priority.length : 0);
    const piece = encoded.subarray(offset, offset + room);
    offset += piece.length;
    const last = offset >= encoded.length;
    let flags = last ? FLAG_END_HEADERS : 0;
    if (first && block.endStream) flags |= FLAG_END_STREAM;
    if (first && block.priority) flags |= FLAG_PRIORITY;
    const payload = first ? Buffer.concat([priority, piece]) : piece;
    frames.push(frameBytes(first ? FRAME_TYPE_HEADERS : FRAME_TYPE_CONTINUATION, flags, block.streamId, payload));
    first = false;
  } while (offset < encoded.length);
  return frames;
}

function frameBytes(type: number, flags: number, streamId: number, payload: Buffer): Buffer {
  const header = Buffer.alloc(FRAME_HEADER_BYTES);
  header.writeUIntBE(payload.length, 0, 3);
  header[3] = type;
  header[4] = flags;
  header.writeUInt32BE(streamId & 0x7fffffff, 5);
  return Buffer.concat([header, payload]);
}

/**
 * Speaks first on the server's behalf (an empty SETTINGS frame), reads `socket` up to
 * the client's acknowledgement of it and its first complete header block, then calls
 * `handOver` with either the socket itself (the bytes read put back, the
 * acknowledgement left out) or a stream that rewrites every header block of the connection.
 */
export function sniffAuthority(socket: Socket, handOver: (connection: Duplex) => void): void {
  const splitter = new FrameSplitter();
  const rewriter = new AuthorityRewriter();
  const asCame: Buffer[] = [];
  const rewritten: Buffer[] = [];
  let ackDropped = false;
  let undecodable = false;
  const onData = (chunk: Buffer) => {
    try {
      const { preface, frames } = splitter.push(chunk);
      if (preface) {
        asCame.push(preface);
        rewritten.push(preface);
      }
      for (const frame of frames) {
        if (!ackDropped && frame.type === FRAME_TYPE_SETTINGS && frame.flags & FLAG_ACK) {
          ackDropped = true;
          continue;
        }
        asCame.push(frame.raw);
        rewritten.push(...rewriter.frameOut(frame));
      }
    } catch {
      // Not HTTP/2 as we read it: nghttp2 gives the client its own answer.
      undecodable = true;
    }
    if (!undecodable && !(ackDropped && rewriter.lastAuthority !== undefined)) return;
    socket.off('data', onData);
    socket.pause();
    if (undecodable || authorityNghttp2Accepts(rewriter.lastAuthority ?? '')) {
      socket.unshift(Buffer.concat([...asCame, splitter.pending]));
      handOver(socket);
    } else {
      handOver(rewritingConnection(socket, splitter, rewriter, rewritten));
    }
  };
  socket.on('data', onData);
  socket.on('error', () => socket.destroy());
  socket.write(EMPTY_SETTINGS_FRAME);
}

/** A duplex the server reads rewritten client bytes from and writes its replies to the socket through. */
function rewritingConnection(socket: Socket, splitter: FrameSplitter, rewriter: AuthorityRewriter, alreadyRewritten: Buffer[]): Duplex {
  const connection = new Duplex({
    read() {
      socket.resume();
    },
    write(chunk: Buffer, _encoding, callback) {
      socket.write(chunk, callback);
    },
    final(callback) {
      socket.end(callback);
    },
    destroy(err, callback) {
      socket.destroy(err ?? undefined);
      callback(err);
    },
  });
  const forward = (buffers: Buffer[]) => {
    for (const buffer of buffers) if (!connection.push(buffer)) socket.pause();
  };
  forward(alreadyRewritten);
  socket.on('data', (chunk: Buffer) => {
    try {
      forward(splitter.push(chunk).frames.flatMap((frame) => rewriter.frameOut(frame)));
    } catch (err) {
      connection.destroy(err as Error);
    }
  });
  socket.on('end', () => connection.push(null));
  socket.on('close', () => connection.destroy());
  return connection;
}
