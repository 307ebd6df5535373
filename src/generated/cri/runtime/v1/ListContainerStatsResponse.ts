// Original file: proto/cri/api.proto

import type { ContainerStats as _runtime_v1_ContainerStats, ContainerStats__Output as _runtime_v1_ContainerStats__Output } from '../../runtime/v1/ContainerStats.js';

export interface ListContainerStatsResponse {
  'stats'?: (_runtime_v1_ContainerStats)[];
}

export interface ListContainerStatsResponse__Output {
  'stats': (_runtime_v1_ContainerStats__Output)[];
}
