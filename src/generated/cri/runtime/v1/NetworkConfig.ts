// Original file: proto/cri/api.proto


export interface NetworkConfig {
  'pod_cidr'?: (string);
}

export interface NetworkConfig__Output {
  'pod_cidr': (string);
}
