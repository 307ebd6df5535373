// Original file: proto/cri/api.proto

import type { LinuxContainerResources as _runtime_v1_LinuxContainerResources, LinuxContainerResources__Output as _runtime_v1_LinuxContainerResources__Output } from '../../runtime/v1/LinuxContainerResources.js';
import type { WindowsContainerResources as _runtime_v1_WindowsContainerResources, WindowsContainerResources__Output as _runtime_v1_WindowsContainerResources__Output } from '../../runtime/v1/WindowsContainerResources.js';

export interface UpdateContainerResourcesRequest {
  'container_id'?: (string);
  'linux'?: (_runtime_v1_LinuxContainerResources | null);
  'windows'?: (_runtime_v1_WindowsContainerResources | null);
  'annotations'?: ({[key: string]: string});
}

export interface UpdateContainerResourcesRequest__Output {
  'container_id': (string);
  'linux': (_runtime_v1_LinuxContainerResources__Output | null);
  'windows': (_runtime_v1_WindowsContainerResources__Output | null);
  'annotations': ({[key: string]: string});
}
