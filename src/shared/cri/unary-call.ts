// One unary CRI call driven straight on a grpc-js channel. grpc-js's own
// Client.makeUnaryRequest does the same on top of Channel.createCall, plus what
// shardlet never uses and pays for on every call: the interceptor chain (arrays,
// closures and an options copy per call), call invocation transformers, an
// EventEmitter per call, and an Error captured per call for the caller's stack
// (which CriError drops anyway). Measured on the instant sim, the client path costs
// about a fifth less CPU per call this way (docs/bench.md, cri-call-cost).
// What the Client guarantees is kept, in its words: a request that cannot be
// serialized and a reply that cannot be parsed end the call INTERNAL, an OK status
// without a reply is UNIMPLEMENTED "No message received", a second reply
// UNIMPLEMENTED; the call's metadata is copied by the channel when it starts.
import * as grpc from '@grpc/grpc-js';
import type { CriCallCounts } from './call-counts.js';
import { toCriError } from './cri-error.js';
import type { UnaryMethod } from './unary-methods.js';

/** Every call sends the same empty metadata: the channel copies it at the start (ResolvingCall.start). */
const CALL_METADATA = new grpc.Metadata();
/** What the Client passes with a unary message: no flags, no write callback. Only read by the channel. */
const SEND_CONTEXT = {};

type ChannelCall = ReturnType<grpc.ChannelInterface['createCall']>;

/** The listener of one call: the outcome settles the call's promise and is counted once. */
class UnaryCallListener<Req, Res> implements grpc.InterceptingListener {
  private reply: Res | undefined;
  private replied = false;
  private readError: grpc.StatusObject | undefined;
  private settled = false;
  private readonly startedAt = performance.now();

  constructor(
    private readonly call: ChannelCall,
    private readonly method: UnaryMethod<Req, Res>,
    private readonly resolve: (reply: Res) => void,
    private readonly reject: (err: Error) => void,
    private readonly callCounts: CriCallCounts | undefined,
  ) {}

  onReceiveMetadata(): void {}

  onReceiveMessage(bytes: Buffer): void {
    if (this.replied) {
      this.call.cancelWithStatus(grpc.status.UNIMPLEMENTED, 'Too many responses received');
      return;
    }
    try {
      this.reply = this.method.deserialize(bytes);
      this.replied = true;
    } catch (err) {
      const details = `Response message parsing error: ${(err as Error)?.message ?? String(err)}`;
      this.readError = { code: grpc.status.INTERNAL, details, metadata: new grpc.Metadata() };
      this.call.cancelWithStatus(grpc.status.INTERNAL, details);
    }
  }

  onReceiveStatus(status: grpc.StatusObject): void {
    if (this.settled) return;
    this.settled = true;
    const final = this.readError ?? status;
    const ok = final.code === grpc.status.OK && this.replied;
    this.callCounts?.record(this.method.name, (performance.now() - this.startedAt) / 1000, !ok);
    if (ok) this.resolve(this.reply as Res);
    else if (final.code === grpc.status.OK) this.reject(toCriError(this.method.label, { code: grpc.status.UNIMPLEMENTED, details: 'No message received' }));
    else this.reject(toCriError(this.method.label, final));
  }
}

/**
 * Starts the call and resolves with the decoded reply, or rejects with a CriError
 * that keeps the gRPC code and details; `deadline` is a Date.now() time. A channel
 * already closed throws from createCall, which rejects the promise with that error,
 * as with the Client.
 */
export function unaryCall<Req, Res>(
  channel: grpc.ChannelInterface,
  method: UnaryMethod<Req, Res>,
  request: Req,
  deadline: number,
  callCounts: CriCallCounts | undefined,
): Promise<Res> {
  return new Promise<Res>((resolve, reject) => {
    const call = channel.createCall(method.path, deadline, undefined, null, undefined);
    call.start(CALL_METADATA, new UnaryCallListener(call, method, resolve, reject, callCounts));
    call.startRead();
    let bytes: Buffer;
    try {
      bytes = method.serialize(request);
    } catch (err) {
      call.cancelWithStatus(grpc.status.INTERNAL, `Request message serialization failure: ${(err as Error)?.message ?? String(err)}`);
      return;
    }
    call.sendMessageWithContext(SEND_CONTEXT, bytes);
    call.halfClose();
  });
}
