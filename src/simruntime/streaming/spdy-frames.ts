// SPDY/3 framing as Kubernetes' streaming protocols use it (moby/spdystream, the
// "SPDY/3.1" upgrade of exec, attach and port-forward): SYN_STREAM, SYN_REPLY,
// DATA, RST_STREAM, SETTINGS, PING, GOAWAY, HEADERS and WINDOW_UPDATE frames, with
// header blocks in one zlib stream per direction primed with the SPDY/3 dictionary. spdy-transport's own connection cannot serve these
// sessions (it insists on HTTP's :method and :path in every SYN_STREAM), so only
// its dictionary is borrowed.
import { createRequire } from 'node:module';
import * as zlib from 'node:zlib';

const requireCjs = createRequire(import.meta.url);
const SPDY3_DICTIONARY: Buffer = (requireCjs('spdy-transport/lib/spdy-transport/protocol/spdy/dictionary.js') as Record<number, Buffer>)[3];

export const SPDY_VERSION = 3;
export const FLAG_FIN = 0x01;
export const FLAG_UNIDIRECTIONAL = 0x02;
/** RST_STREAM status codes used here. */
export const RST_PROTOCOL_ERROR = 1;
export const RST_CANCEL = 5;

export const enum FrameType {
  SynStream = 1,
  SynReply = 2,
  RstStream = 3,
  Settings = 4,
  Ping = 6,
  GoAway = 7,
  Headers = 8,
  WindowUpdate = 9,
}

export type SpdyHeaders = Record<string, string>;

export type SpdyFrame =
  | { kind: 'data'; streamId: number; fin: boolean; data: Buffer }
  | { kind: 'syn_stream'; streamId: number; fin: boolean; headers: SpdyHeaders }
  | { kind: 'syn_reply'; streamId: number; fin: boolean; headers: SpdyHeaders }
  | { kind: 'headers'; streamId: number; fin: boolean; headers: SpdyHeaders }
  | { kind: 'rst_stream'; streamId: number; status: number }
  | { kind: 'ping'; id: number }
  | { kind: 'goaway'; lastStreamId: number }
  | { kind: 'other'; type: number };

/** A stored deflate block holds at most 65535 bytes. */
const MAX_STORED_BLOCK_BYTES = 65_535;
const SPDY3_DICTIONARY_ADLER32 = adler32(SPDY3_DICTIONARY);
/** An empty, non-final stored block. */
const SYNC_FLUSH_MARKER = Buffer.from([0x00, 0x00, 0x00, 0xff, 0xff]);

function adler32(bytes: Buffer): number {
  let a = 1;
  let b = 0;
  for (const byte of bytes) {
    a = (a + byte) % 65_521;
    b = (b + a) % 65_521;
  }
  return ((b << 16) | a) >>> 0;
}

/** Reads frames off a byte stream; feed() returns every frame completed so far. */
export class SpdyFrameReader {
  private pending: Buffer = Buffer.alloc(0);
  /** Every compressed header byte so far: the zlib stream spans the connection (see headerBlock). */
  private compressed: Buffer = Buffer.alloc(0);
  private inflatedBytes = 0;

  feed(chunk: Buffer): SpdyFrame[] {
    this.pending = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    const frames: SpdyFrame[] = [];
    while (this.pending.length >= 8) {
      const length = this.pending.readUIntBE(5, 3);
      if (this.pending.length < 8 + length) break;
      const head = this.pending.subarray(0, 8);
      const body = this.pending.subarray(8, 8 + length);
      this.pending = this.pending.subarray(8 + length);
      frames.push(this.decode(head, Buffer.from(body)));
    }
    return frames;
  }

  private decode(head: Buffer, body: Buffer): SpdyFrame {
    const flags = head[4];
    const fin = (flags & FLAG_FIN) !== 0;
    if ((head[0] & 0x80) === 0) return { kind: 'data', streamId: head.readUInt32BE(0) & 0x7fffffff, fin, data: body };
    const type = head.readUInt16BE(2);
    const streamId = body.length >= 4 ? body.readUInt32BE(0) & 0x7fffffff : 0;
    switch (type) {
      case FrameType.SynStream:
        return { kind: 'syn_stream', streamId, fin, headers: this.headerBlock(body.subarray(10)) };
      case FrameType.SynReply:
        return { kind: 'syn_reply', streamId, fin, headers: this.headerBlock(body.subarray(4)) };
      case FrameType.Headers:
        return { kind: 'headers', streamId, fin, headers: this.headerBlock(body.subarray(4)) };
      case FrameType.RstStream:
        return { kind: 'rst_stream', streamId, status: body.readUInt32BE(4) };
      case FrameType.Ping:
        return { kind: 'ping', id: body.readUInt32BE(0) };
      case FrameType.GoAway:
        return { kind: 'goaway', lastStreamId: streamId };
      default:
        return { kind: 'other', type };
    }
  }

  private headerBlock(compressed: Buffer): SpdyHeaders {
    // Node has no synchronous streaming inflate, so the stream so far is inflated again (a
    // truncated stream is accepted with a sync-flush finish) and the new bytes taken. Header
    // blocks are small and few per connection (two per forwarded connection at most).
    this.compressed = Buffer.concat([this.compressed, compressed]);
    const inflated = zlib.inflateSync(this.compressed, { dictionary: SPDY3_DICTIONARY, finishFlush: zlib.constants.Z_SYNC_FLUSH });
    const block = inflated.subarray(this.inflatedBytes);
    this.inflatedBytes = inflated.length;
    const headers: SpdyHeaders = {};
    let offset = 4;
    const count = block.readUInt32BE(0);
    for (let i = 0; i < count; i++) {
      const nameLength = block.readUInt32BE(offset);
      const name = block.toString('latin1', offset + 4, offset + 4 + nameLength);
      offset += 4 + nameLength;
      const valueLength = block.readUInt32BE(offset);
      // Several values of one header are NUL-separated; the streaming protocols use one.
      headers[name.toLowerCase()] = block.toString('latin1', offset + 4, offset + 4 + valueLength).split('\0')[0];
      offset += 4 + valueLength;
    }
    return headers;
  }
}

/** Encodes frames; header blocks share one deflate context, so frames must be written in the order encoded. */
export class SpdyFrameWriter {
  private zlibHeaderWritten = false;

  data(streamId: number, data: Buffer, fin: boolean): Buffer {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(streamId & 0x7fffffff, 0);
    head[4] = fin ? FLAG_FIN : 0;
    head.writeUIntBE(data.length, 5, 3);
    return Buffer.concat([head, data]);
  }

  synStream(streamId: number, headers: SpdyHeaders, fin = false): Buffer {
    const fields = Buffer.alloc(10);
    fields.writeUInt32BE(streamId, 0);
    return this.control(FrameType.SynStream, fin ? FLAG_FIN : 0, Buffer.concat([fields, this.headerBlock(headers)]));
  }

  synReply(streamId: number, headers: SpdyHeaders = {}, fin = false): Buffer {
    const id = Buffer.alloc(4);
    id.writeUInt32BE(streamId, 0);
    return this.control(FrameType.SynReply, fin ? FLAG_FIN : 0, Buffer.concat([id, this.headerBlock(headers)]));
  }

  rstStream(streamId: number, status: number): Buffer {
    const body = Buffer.alloc(8);
    body.writeUInt32BE(streamId, 0);
    body.writeUInt32BE(status, 4);
    return this.control(FrameType.RstStream, 0, body);
  }

  ping(id: number): Buffer {
    const body = Buffer.alloc(4);
    body.writeUInt32BE(id, 0);
    return this.control(FrameType.Ping, 0, body);
  }

  goAway(lastStreamId: number): Buffer {
    const body = Buffer.alloc(8);
    body.writeUInt32BE(lastStreamId, 0);
    return this.control(FrameType.GoAway, 0, body);
  }

  private control(type: FrameType, flags: number, body: Buffer): Buffer {
    const head = Buffer.alloc(8);
    head.writeUInt16BE(0x8000 | SPDY_VERSION, 0);
    head.writeUInt16BE(type, 2);
    head[4] = flags;
    head.writeUIntBE(body.length, 5, 3);
    return Buffer.concat([head, body]);
  }

  private headerBlock(headers: SpdyHeaders): Buffer {
    const parts: Buffer[] = [];
    const count = Buffer.alloc(4);
    count.writeUInt32BE(Object.keys(headers).length, 0);
    parts.push(count);
    for (const [name, value] of Object.entries(headers)) {
      for (const text of [name.toLowerCase(), value]) {
        const bytes = Buffer.from(text, 'latin1');
        const length = Buffer.alloc(4);
        length.writeUInt32BE(bytes.length, 0);
        parts.push(length, bytes);
      }
    }
    return this.storedBlocks(Buffer.concat(parts));
  }

  /**
   * The header block as zlib "stored" deflate blocks ending with a sync flush: valid
   * for any inflater primed with the dictionary (Go's zlib reader checks its ID),
   * and needing no compressor state across frames.
   */
  private storedBlocks(raw: Buffer): Buffer {
    const parts: Buffer[] = [];
    if (!this.zlibHeaderWritten) {
      this.zlibHeaderWritten = true;
      const header = Buffer.alloc(6);
      // CMF 0x78 (deflate, 32 KiB window), FLG 0xBB (FDICT set, check bits valid), then the dictionary's Adler-32.
      header[0] = 0x78;
      header[1] = 0xbb;
      header.writeUInt32BE(SPDY3_DICTIONARY_ADLER32, 2);
      parts.push(header);
    }
    for (let offset = 0; offset < raw.length; offset += MAX_STORED_BLOCK_BYTES) {
      const chunk = raw.subarray(offset, offset + MAX_STORED_BLOCK_BYTES);
      const blockHeader = Buffer.alloc(5);
      blockHeader[0] = 0x00; // not final, stored
      blockHeader.writeUInt16LE(chunk.length, 1);
      blockHeader.writeUInt16LE(~chunk.length & 0xffff, 3);
      parts.push(blockHeader, chunk);
    }
    // The empty stored block a sync flush writes: Go's inflater hands a block's bytes out
    // only once it has read the next block's header, which must be in this frame.
    parts.push(SYNC_FLUSH_MARKER);
    return Buffer.concat(parts);
  }
}
