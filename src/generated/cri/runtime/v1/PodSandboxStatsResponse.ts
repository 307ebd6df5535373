// Original file: proto/cri/api.proto

import type { PodSandboxStats as _runtime_v1_PodSandboxStats, PodSandboxStats__Output as _runtime_v1_PodSandboxStats__Output } from '../../runtime/v1/PodSandboxStats.js';

export interface PodSandboxStatsResponse {
  'stats'?: (_runtime_v1_PodSandboxStats | null);
}

export interface PodSandboxStatsResponse__Output {
  'stats': (_runtime_v1_PodSandboxStats__Output | null);
}
