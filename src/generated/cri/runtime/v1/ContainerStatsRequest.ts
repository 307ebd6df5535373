// Original file: proto/cri/api.proto


export interface ContainerStatsRequest {
  'container_id'?: (string);
}

export interface ContainerStatsRequest__Output {
  'container_id': (string);
}
