// The grpc.health.v1 Health service (proto/grpc/health/v1/health.proto), loaded
// once per thread: the grpc probe's client calls it, and tests serve it.
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { projectProtoPath } from './cri/load-proto.js';

export type ServingStatus = 'UNKNOWN' | 'SERVING' | 'NOT_SERVING' | 'SERVICE_UNKNOWN';

export interface HealthCheckRequest {
  service: string;
}

export interface HealthCheckResponse {
  status: ServingStatus;
}

let cached: grpc.ServiceDefinition | undefined;

/** The Health service definition (Check and Watch), enums as their names. */
export function healthServiceDefinition(): grpc.ServiceDefinition {
  if (cached) return cached;
  const definition = protoLoader.loadSync(projectProtoPath(join('proto', 'grpc', 'health', 'v1', 'health.proto')), {
    keepCase: true,
    enums: String,
    defaults: true,
  });
  const loaded = grpc.loadPackageDefinition(definition) as unknown as {
    grpc: { health: { v1: { Health: grpc.ServiceClientConstructor } } };
  };
  cached = loaded.grpc.health.v1.Health.service;
  return cached;
}
