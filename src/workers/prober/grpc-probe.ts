// The grpc probe, as upstream's pkg/probe/grpc: one fresh insecure connection per
// probe, grpc.health.v1.Health/Check with the probe's service, SERVING succeeds;
// every other answer or error is a failure worded as upstream words it.
import * as grpc from '@grpc/grpc-js';
import { healthServiceDefinition, type HealthCheckResponse } from '../../shared/grpc-health.js';
import { formatGoDurationMs } from '../../shared/events/event-types.js';
import { PROBE_USER_AGENT } from './http-probe.js';
import { failed, joinHostPort, succeeded, type ProbeOutcome } from './probe-outcome.js';

export async function grpcProbe(host: string, port: number, service: string, timeoutMs: number): Promise<ProbeOutcome> {
  const address = joinHostPort(host, port);
  const within = formatGoDurationMs(timeoutMs);
  const client = new grpc.Client(address, grpc.credentials.createInsecure(), {
    'grpc.primary_user_agent': PROBE_USER_AGENT,
    'grpc.use_local_subchannel_pool': 1,
    'grpc.enable_retries': 0,
  });
  const check = healthServiceDefinition().Check;
  try {
    const reply = await new Promise<HealthCheckResponse>((resolve, reject) => {
      client.makeUnaryRequest(
        check.path,
        check.requestSerialize,
        check.responseDeserialize,
        { service },
        new grpc.Metadata(),
        { deadline: Date.now() + timeoutMs },
        (err, response) => (err ? reject(err) : resolve(response as HealthCheckResponse)),
      );
    });
    if (reply.status !== 'SERVING') return failed(`service unhealthy (responded with "${reply.status}")`);
    return succeeded('service healthy');
  } catch (err) {
    const status = err as grpc.ServiceError;
    if (status.code === grpc.status.UNIMPLEMENTED) {
      return failed(`this server does not implement the grpc health protocol (grpc.health.v1.Health): ${status.details}`);
    }
    if (status.code === grpc.status.UNAVAILABLE) return failed(`timeout: failed to connect service "${address}" within ${within}: ${status.details}`);
    if (status.code === grpc.status.DEADLINE_EXCEEDED) return failed(`timeout: health rpc did not complete within ${within}`);
    return failed(`error: health rpc probe failed: rpc error: code = ${grpc.status[status.code]} desc = ${status.details}`);
  } finally {
    client.close();
  }
}
