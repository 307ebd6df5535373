// Original file: proto/cri/api.proto


export interface ContainerStatsFilter {
  'id'?: (string);
  'pod_sandbox_id'?: (string);
  'label_selector'?: ({[key: string]: string});
}

export interface ContainerStatsFilter__Output {
  'id': (string);
  'pod_sandbox_id': (string);
  'label_selector': ({[key: string]: string});
}
