// Loads the CRI service definition from proto/cri/api.proto at run time, once per
// thread (each worker thread has its own module graph, hence its own copy).
// The decode options here must match the flags the types in src/generated/cri were
// generated with, or the types would lie about the shapes grpc-js hands back.
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import type { ProtoGrpcType } from '../../generated/cri/api.js';
import type { RuntimeServiceDefinition } from '../../generated/cri/runtime/v1/RuntimeService.js';
import type { ImageServiceDefinition } from '../../generated/cri/runtime/v1/ImageService.js';
import { projectProtoPath } from '../project-path.js';

export { projectProtoPath };

const CRI_PROTO_RELATIVE_PATH = join('proto', 'cri', 'api.proto');

/** proto-loader options; keep in step with the proto-loader-gen-types flags. */
export const CRI_LOADER_OPTIONS: protoLoader.Options = {
  keepCase: true,
  longs: Number,
  enums: String,
  defaults: true,
  oneofs: true,
};

export function criProtoPath(): string {
  return projectProtoPath(CRI_PROTO_RELATIVE_PATH);
}

export interface CriServices {
  runtime: RuntimeServiceDefinition;
  image: ImageServiceDefinition;
}

let cachedServices: CriServices | undefined;

/** The RuntimeService and ImageService definitions, parsed on first use. */
export function loadCriServices(): CriServices {
  if (cachedServices) return cachedServices;
  const packageDefinition = protoLoader.loadSync(criProtoPath(), CRI_LOADER_OPTIONS);
  const proto = grpc.loadPackageDefinition(packageDefinition) as unknown as ProtoGrpcType;
  cachedServices = {
    runtime: proto.runtime.v1.RuntimeService.service,
    image: proto.runtime.v1.ImageService.service,
  };
  return cachedServices;
}
