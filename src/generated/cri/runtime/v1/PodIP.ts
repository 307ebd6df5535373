// Original file: proto/cri/api.proto


export interface PodIP {
  'ip'?: (string);
}

export interface PodIP__Output {
  'ip': (string);
}
