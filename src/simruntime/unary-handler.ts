// Adapts an async `request → reply` function to a grpc-js unary handler: counts
// the call, turns SimError into the gRPC status it carries and anything else
// into INTERNAL (a bug in the sim, logged loudly). A fault a test injected comes first.
// The handler gets a signal that aborts when the caller goes away: its deadline
// passed or it cancelled, as containerd's handlers see their context end; and the
// deadline itself, which CRI-O's StopPodSandbox turns into its stop timeout.
import { status as GrpcStatus, type handleUnaryCall, type sendUnaryData, type ServerUnaryCall } from '@grpc/grpc-js';
import type { Logger } from 'pino';
import type { CallStats } from './call-stats.js';
import type { FaultInjector } from './fault-injection.js';
import type { RpcName } from './latency-model.js';
import { SimError } from './sim-error.js';
import type { StateStore } from './state-store.js';

export interface HandlerEnv {
  stats: CallStats;
  logger: Logger;
  faults: FaultInjector;
  store: StateStore;
}

export function unaryHandler<Req, Res>(
  env: HandlerEnv,
  rpc: RpcName,
  impl: (request: Req, callerGone: AbortSignal, deadlineMs: number | undefined) => Promise<Res>,
): handleUnaryCall<Req, Res> {
  return (call, callback: sendUnaryData<Res>) => {
    const end = env.stats.begin(rpc);
    const startedMs = performance.now();
    const callerGone = callerGoneSignal(call);
    env.faults
      .apply(rpc, call.request, env.store)
      .then(() => impl(call.request, callerGone.signal, deadlineMsOf(call)))
      .finally(() => callerGone.release())
      .then(
        (reply) => {
          end();
          env.logger.trace({ rpc, durationMs: Math.round(performance.now() - startedMs) }, 'CRI call');
          callback(null, reply);
        },
        (err: unknown) => {
          end();
          if (err instanceof SimError) {
            env.logger.debug({ rpc, code: GrpcStatus[err.code], err: err.message }, 'CRI call failed');
            callback(err.toServiceError());
            return;
          }
          env.logger.error({ rpc, err }, 'simulated runtime bug');
          callback({ code: GrpcStatus.INTERNAL, details: `simulated runtime: ${(err as Error)?.message ?? String(err)}` });
        },
      );
  };
}

/** The caller's deadline in epoch milliseconds, or undefined when it set none. */
function deadlineMsOf(call: ServerUnaryCall<unknown, unknown>): number | undefined {
  const deadline = call.getDeadline();
  const deadlineMs = deadline instanceof Date ? deadline.getTime() : Number(deadline);
  return Number.isFinite(deadlineMs) ? deadlineMs : undefined;
}

/** Aborts when the call is cancelled or its deadline passes; release() drops the timer once the call is answered. */
function callerGoneSignal(call: ServerUnaryCall<unknown, unknown>): { signal: AbortSignal; release(): void } {
  const controller = new AbortController();
  const abort = () => controller.abort();
  call.once('cancelled', abort);
  const deadlineMs = deadlineMsOf(call);
  const timer = deadlineMs !== undefined ? setTimeout(abort, Math.max(deadlineMs - Date.now(), 0)) : undefined;
  timer?.unref();
  return {
    signal: controller.signal,
    release() {
      clearTimeout(timer);
      call.off('cancelled', abort);
    },
  };
}
