// A CRI client for tests that check what a runtime returns beyond what the kubelet
// reads: CriClient decodes the hot replies only as far as its callers need
// (src/shared/cri/codec/reply-types.ts), so a test of the simulated runtime's
// contract (annotations kept, image tags, mounts) reads the whole reply through
// proto-loader's generic codecs instead.
import * as grpc from '@grpc/grpc-js';
import type { CriMethod } from '../../src/shared/cri/call-counts.js';
import { normalizeEndpoint } from '../../src/shared/cri/client.js';
import type * as cri from '../../src/shared/cri/types.js';
import { genericMethod, type CriService } from '../../src/shared/cri/unary-methods.js';

const CALL_TIMEOUT_MS = 10_000;

export class FullCriClient {
  private readonly conn: grpc.Client;

  constructor(endpoint: string) {
    this.conn = new grpc.Client(normalizeEndpoint(endpoint), grpc.credentials.createInsecure());
  }

  podSandboxStatus(req: cri.PodSandboxStatusRequest): Promise<cri.PodSandboxStatusResponse__Output> {
    return this.call('RuntimeService', 'PodSandboxStatus', req);
  }

  listPodSandbox(req: cri.ListPodSandboxRequest): Promise<cri.ListPodSandboxResponse__Output> {
    return this.call('RuntimeService', 'ListPodSandbox', req);
  }

  containerStatus(req: cri.ContainerStatusRequest): Promise<cri.ContainerStatusResponse__Output> {
    return this.call('RuntimeService', 'ContainerStatus', req);
  }

  imageStatus(req: cri.ImageStatusRequest): Promise<cri.ImageStatusResponse__Output> {
    return this.call('ImageService', 'ImageStatus', req);
  }

  close(): void {
    this.conn.close();
  }

  private call<Res>(service: CriService, name: CriMethod, req: object): Promise<Res> {
    const method = genericMethod(service, name);
    return new Promise<Res>((resolve, reject) => {
      this.conn.makeUnaryRequest(method.path, method.serialize, method.deserialize, req, new grpc.Metadata(), { deadline: Date.now() + CALL_TIMEOUT_MS }, (err, reply) =>
        err ? reject(err) : resolve(reply as Res),
      );
    });
  }
}
