// Original file: proto/cri/api.proto

import type { ContainerEventType as _runtime_v1_ContainerEventType, ContainerEventType__Output as _runtime_v1_ContainerEventType__Output } from '../../runtime/v1/ContainerEventType.js';
import type { PodSandboxStatus as _runtime_v1_PodSandboxStatus, PodSandboxStatus__Output as _runtime_v1_PodSandboxStatus__Output } from '../../runtime/v1/PodSandboxStatus.js';
import type { ContainerStatus as _runtime_v1_ContainerStatus, ContainerStatus__Output as _runtime_v1_ContainerStatus__Output } from '../../runtime/v1/ContainerStatus.js';
import type { Long } from '@grpc/proto-loader';

export interface ContainerEventResponse {
  'container_id'?: (string);
  'container_event_type'?: (_runtime_v1_ContainerEventType);
  'created_at'?: (number | string | Long);
  'pod_sandbox_status'?: (_runtime_v1_PodSandboxStatus | null);
  'containers_statuses'?: (_runtime_v1_ContainerStatus)[];
}

export interface ContainerEventResponse__Output {
  'container_id': (string);
  'container_event_type': (_runtime_v1_ContainerEventType__Output);
  'created_at': (number);
  'pod_sandbox_status': (_runtime_v1_PodSandboxStatus__Output | null);
  'containers_statuses': (_runtime_v1_ContainerStatus__Output)[];
}
