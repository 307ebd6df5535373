// Every unary CRI method the client calls, described once per thread: the HTTP/2
// path grpc-js posts to, the codecs it runs, and the names the call counters and
// CriError use. The methods a pod start, a pod's runtime read, the relist and an
// exec probe make have static codecs (codec/); the cold ones (stats, streaming URLs,
// image list and removal, runtime status and config, log reopening) keep
// proto-loader's generic codecs, and the proto is parsed only when a thread first
// makes one of them, so shard and PLEG threads never parse it.
import type { MethodDefinition } from '@grpc/proto-loader';
import type { CriMethod } from './call-counts.js';
import {
  decodeContainerStatusResponse,
  decodeCreateContainerResponse,
  decodeEmptyResponse,
  decodeExecSyncResponse,
  decodeImageStatusResponse,
  decodeListContainersResponse,
  decodeListPodSandboxResponse,
  decodePodSandboxStatusResponse,
  decodePullImageResponse,
  decodeRunPodSandboxResponse,
  decodeVersionResponse,
} from './codec/reply-decoders.js';
import {
  encodeContainerIdRequest,
  encodeContainerStatusRequest,
  encodeCreateContainerRequest,
  encodeExecSyncRequest,
  encodeImageStatusRequest,
  encodeListContainersRequest,
  encodeListPodSandboxRequest,
  encodePodSandboxIdRequest,
  encodePodSandboxStatusRequest,
  encodePullImageRequest,
  encodeRunPodSandboxRequest,
  encodeStopContainerRequest,
  encodeVersionRequest,
} from './codec/request-encoders.js';
import { loadCriServices } from './load-proto.js';
import { decodeContainerList, decodeSandboxList } from './relist-codec.js';

export type CriService = 'RuntimeService' | 'ImageService';

export interface UnaryMethod<Req, Res> {
  /** The method's name in the call counters. */
  readonly name: CriMethod;
  readonly service: CriService;
  /** "RuntimeService/StartContainer": how a CriError names the call. */
  readonly label: string;
  /** "/runtime.v1.RuntimeService/StartContainer". */
  readonly path: string;
  readonly serialize: (request: Req) => Buffer;
  readonly deserialize: (reply: Buffer) => Res;
}

function method<Req, Res>(
  service: CriService,
  name: CriMethod,
  serialize: (request: Req) => Buffer,
  deserialize: (reply: Buffer) => Res,
): UnaryMethod<Req, Res> {
  return { name, service, label: `${service}/${name}`, path: `/runtime.v1.${service}/${name}`, serialize, deserialize };
}

/** The methods with static codecs, keyed by what the client calls them for. */
export const STATIC_METHODS = {
  version: method('RuntimeService', 'Version', encodeVersionRequest, decodeVersionResponse),
  runPodSandbox: method('RuntimeService', 'RunPodSandbox', encodeRunPodSandboxRequest, decodeRunPodSandboxResponse),
  stopPodSandbox: method('RuntimeService', 'StopPodSandbox', encodePodSandboxIdRequest, decodeEmptyResponse),
  removePodSandbox: method('RuntimeService', 'RemovePodSandbox', encodePodSandboxIdRequest, decodeEmptyResponse),
  podSandboxStatus: method('RuntimeService', 'PodSandboxStatus', encodePodSandboxStatusRequest, decodePodSandboxStatusResponse),
  listPodSandbox: method('RuntimeService', 'ListPodSandbox', encodeListPodSandboxRequest, decodeListPodSandboxResponse),
  createContainer: method('RuntimeService', 'CreateContainer', encodeCreateContainerRequest, decodeCreateContainerResponse),
  startContainer: method('RuntimeService', 'StartContainer', encodeContainerIdRequest, decodeEmptyResponse),
  stopContainer: method('RuntimeService', 'StopContainer', encodeStopContainerRequest, decodeEmptyResponse),
  removeContainer: method('RuntimeService', 'RemoveContainer', encodeContainerIdRequest, decodeEmptyResponse),
  listContainers: method('RuntimeService', 'ListContainers', encodeListContainersRequest, decodeListContainersResponse),
  containerStatus: method('RuntimeService', 'ContainerStatus', encodeContainerStatusRequest, decodeContainerStatusResponse),
  execSync: method('RuntimeService', 'ExecSync', encodeExecSyncRequest, decodeExecSyncResponse),
  /** The relist's own decoding of the same two calls (relist-codec.ts). */
  listPodSandboxForRelist: method('RuntimeService', 'ListPodSandbox', encodeListPodSandboxRequest, decodeSandboxList),
  listContainersForRelist: method('RuntimeService', 'ListContainers', encodeListContainersRequest, decodeContainerList),
  imageStatus: method('ImageService', 'ImageStatus', encodeImageStatusRequest, decodeImageStatusResponse),
  pullImage: method('ImageService', 'PullImage', encodePullImageRequest, decodePullImageResponse),
} as const;

type GenericDefinition = MethodDefinition<object, object, object, object>;

const genericMethodsByLabel = new Map<string, UnaryMethod<object, unknown>>();

/** A cold method with proto-loader's codecs (requests as proto-loader's input types, replies with every default filled in). */
export function genericMethod(service: CriService, name: CriMethod): UnaryMethod<object, unknown> {
  const label = `${service}/${name}`;
  let found = genericMethodsByLabel.get(label);
  if (!found) {
    const services = loadCriServices();
    const definitions = (service === 'RuntimeService' ? services.runtime : services.image) as unknown as Record<string, GenericDefinition>;
    const definition = definitions[name];
    found = { name, service, label, path: definition.path, serialize: definition.requestSerialize, deserialize: definition.responseDeserialize };
    genericMethodsByLabel.set(label, found);
  }
  return found;
}
