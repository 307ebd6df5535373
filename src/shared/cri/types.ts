// One import point for the CRI message types the project passes around, so that
// callers write `import type { ContainerConfig } from '../shared/cri/types.js'`
// rather than reaching into src/generated. `X` is the shape we send (every field
// optional), `X__Output` the decoded shape we receive (defaults filled in). The hot
// methods' replies decode to narrower shapes (`…Reply`, `…Lean`, codec/reply-types.ts):
// the same field names and defaults, only the fields callers read.

// Enums are values as well as types: ContainerState.CONTAINER_RUNNING === 'CONTAINER_RUNNING'.
export { ContainerEventType } from '../../generated/cri/runtime/v1/ContainerEventType.js';
export { ContainerState } from '../../generated/cri/runtime/v1/ContainerState.js';
export { MountPropagation } from '../../generated/cri/runtime/v1/MountPropagation.js';
export { NamespaceMode } from '../../generated/cri/runtime/v1/NamespaceMode.js';
export { PodSandboxState } from '../../generated/cri/runtime/v1/PodSandboxState.js';
export { Protocol } from '../../generated/cri/runtime/v1/Protocol.js';
export { SupplementalGroupsPolicy } from '../../generated/cri/runtime/v1/SupplementalGroupsPolicy.js';

export type { AuthConfig, AuthConfig__Output } from '../../generated/cri/runtime/v1/AuthConfig.js';
export type { CDIDevice, CDIDevice__Output } from '../../generated/cri/runtime/v1/CDIDevice.js';
export type { Capability, Capability__Output } from '../../generated/cri/runtime/v1/Capability.js';
export type { Container, Container__Output } from '../../generated/cri/runtime/v1/Container.js';
export type { ContainerConfig, ContainerConfig__Output } from '../../generated/cri/runtime/v1/ContainerConfig.js';
export type { ContainerEventResponse, ContainerEventResponse__Output } from '../../generated/cri/runtime/v1/ContainerEventResponse.js';
export type { ContainerFilter, ContainerFilter__Output } from '../../generated/cri/runtime/v1/ContainerFilter.js';
export type { ContainerMetadata, ContainerMetadata__Output } from '../../generated/cri/runtime/v1/ContainerMetadata.js';
export type { ContainerResources, ContainerResources__Output } from '../../generated/cri/runtime/v1/ContainerResources.js';
export type { ContainerStateValue, ContainerStateValue__Output } from '../../generated/cri/runtime/v1/ContainerStateValue.js';
export type { ContainerStatus, ContainerStatus__Output } from '../../generated/cri/runtime/v1/ContainerStatus.js';
export type { ContainerStatusRequest, ContainerStatusRequest__Output } from '../../generated/cri/runtime/v1/ContainerStatusRequest.js';
export type { ContainerStatusResponse, ContainerStatusResponse__Output } from '../../generated/cri/runtime/v1/ContainerStatusResponse.js';
export type { ContainerUser, ContainerUser__Output } from '../../generated/cri/runtime/v1/ContainerUser.js';
export type { CreateContainerRequest, CreateContainerRequest__Output } from '../../generated/cri/runtime/v1/CreateContainerRequest.js';
export type { CreateContainerResponse, CreateContainerResponse__Output } from '../../generated/cri/runtime/v1/CreateContainerResponse.js';
export type { DNSConfig, DNSConfig__Output } from '../../generated/cri/runtime/v1/DNSConfig.js';
export type { Device, Device__Output } from '../../generated/cri/runtime/v1/Device.js';
export type { ExecSyncRequest, ExecSyncRequest__Output } from '../../generated/cri/runtime/v1/ExecSyncRequest.js';
export type { ExecSyncResponse, ExecSyncResponse__Output } from '../../generated/cri/runtime/v1/ExecSyncResponse.js';
export type { AttachRequest, AttachRequest__Output } from '../../generated/cri/runtime/v1/AttachRequest.js';
export type { AttachResponse, AttachResponse__Output } from '../../generated/cri/runtime/v1/AttachResponse.js';
export type { ExecRequest, ExecRequest__Output } from '../../generated/cri/runtime/v1/ExecRequest.js';
export type { ExecResponse, ExecResponse__Output } from '../../generated/cri/runtime/v1/ExecResponse.js';
export type { PortForwardRequest, PortForwardRequest__Output } from '../../generated/cri/runtime/v1/PortForwardRequest.js';
export type { PortForwardResponse, PortForwardResponse__Output } from '../../generated/cri/runtime/v1/PortForwardResponse.js';
export type { FilesystemIdentifier, FilesystemIdentifier__Output } from '../../generated/cri/runtime/v1/FilesystemIdentifier.js';
export type { FilesystemUsage, FilesystemUsage__Output } from '../../generated/cri/runtime/v1/FilesystemUsage.js';
export type { GetEventsRequest, GetEventsRequest__Output } from '../../generated/cri/runtime/v1/GetEventsRequest.js';
export type { HugepageLimit, HugepageLimit__Output } from '../../generated/cri/runtime/v1/HugepageLimit.js';
export type { IDMapping, IDMapping__Output } from '../../generated/cri/runtime/v1/IDMapping.js';
export type { Image, Image__Output } from '../../generated/cri/runtime/v1/Image.js';
export type { ImageFilter, ImageFilter__Output } from '../../generated/cri/runtime/v1/ImageFilter.js';
export type { ImageFsInfoRequest, ImageFsInfoRequest__Output } from '../../generated/cri/runtime/v1/ImageFsInfoRequest.js';
export type { ImageFsInfoResponse, ImageFsInfoResponse__Output } from '../../generated/cri/runtime/v1/ImageFsInfoResponse.js';
export type { ImageSpec, ImageSpec__Output } from '../../generated/cri/runtime/v1/ImageSpec.js';
export type { ImageStatusRequest, ImageStatusRequest__Output } from '../../generated/cri/runtime/v1/ImageStatusRequest.js';
export type { ImageStatusResponse, ImageStatusResponse__Output } from '../../generated/cri/runtime/v1/ImageStatusResponse.js';
export type { Int64Value, Int64Value__Output } from '../../generated/cri/runtime/v1/Int64Value.js';
export type { KeyValue, KeyValue__Output } from '../../generated/cri/runtime/v1/KeyValue.js';
export type { LinuxContainerConfig, LinuxContainerConfig__Output } from '../../generated/cri/runtime/v1/LinuxContainerConfig.js';
export type { LinuxContainerResources, LinuxContainerResources__Output } from '../../generated/cri/runtime/v1/LinuxContainerResources.js';
export type { LinuxContainerSecurityContext, LinuxContainerSecurityContext__Output } from '../../generated/cri/runtime/v1/LinuxContainerSecurityContext.js';
export type { LinuxContainerUser, LinuxContainerUser__Output } from '../../generated/cri/runtime/v1/LinuxContainerUser.js';
export type { LinuxPodSandboxConfig, LinuxPodSandboxConfig__Output } from '../../generated/cri/runtime/v1/LinuxPodSandboxConfig.js';
export type { LinuxPodSandboxStatus, LinuxPodSandboxStatus__Output } from '../../generated/cri/runtime/v1/LinuxPodSandboxStatus.js';
export type { LinuxSandboxSecurityContext, LinuxSandboxSecurityContext__Output } from '../../generated/cri/runtime/v1/LinuxSandboxSecurityContext.js';
export type { ListContainersRequest, ListContainersRequest__Output } from '../../generated/cri/runtime/v1/ListContainersRequest.js';
export type { ListContainersResponse, ListContainersResponse__Output } from '../../generated/cri/runtime/v1/ListContainersResponse.js';
export type { ListImagesRequest, ListImagesRequest__Output } from '../../generated/cri/runtime/v1/ListImagesRequest.js';
export type { ListImagesResponse, ListImagesResponse__Output } from '../../generated/cri/runtime/v1/ListImagesResponse.js';
export type { ListPodSandboxRequest, ListPodSandboxRequest__Output } from '../../generated/cri/runtime/v1/ListPodSandboxRequest.js';
export type { ListPodSandboxResponse, ListPodSandboxResponse__Output } from '../../generated/cri/runtime/v1/ListPodSandboxResponse.js';
export type { Mount, Mount__Output } from '../../generated/cri/runtime/v1/Mount.js';
export type { Namespace, Namespace__Output } from '../../generated/cri/runtime/v1/Namespace.js';
export type { NamespaceOption, NamespaceOption__Output } from '../../generated/cri/runtime/v1/NamespaceOption.js';
export type { NetworkConfig, NetworkConfig__Output } from '../../generated/cri/runtime/v1/NetworkConfig.js';
export type { PodIP, PodIP__Output } from '../../generated/cri/runtime/v1/PodIP.js';
export type { PodSandbox, PodSandbox__Output } from '../../generated/cri/runtime/v1/PodSandbox.js';
export type { PodSandboxConfig, PodSandboxConfig__Output } from '../../generated/cri/runtime/v1/PodSandboxConfig.js';
export type { PodSandboxFilter, PodSandboxFilter__Output } from '../../generated/cri/runtime/v1/PodSandboxFilter.js';
export type { PodSandboxMetadata, PodSandboxMetadata__Output } from '../../generated/cri/runtime/v1/PodSandboxMetadata.js';
export type { PodSandboxNetworkStatus, PodSandboxNetworkStatus__Output } from '../../generated/cri/runtime/v1/PodSandboxNetworkStatus.js';
export type { PodSandboxStateValue, PodSandboxStateValue__Output } from '../../generated/cri/runtime/v1/PodSandboxStateValue.js';
export type { PodSandboxStatus, PodSandboxStatus__Output } from '../../generated/cri/runtime/v1/PodSandboxStatus.js';
export type { PodSandboxStatusRequest, PodSandboxStatusRequest__Output } from '../../generated/cri/runtime/v1/PodSandboxStatusRequest.js';
export type { PodSandboxStatusResponse, PodSandboxStatusResponse__Output } from '../../generated/cri/runtime/v1/PodSandboxStatusResponse.js';
export type { PortMapping, PortMapping__Output } from '../../generated/cri/runtime/v1/PortMapping.js';
export type { PullImageRequest, PullImageRequest__Output } from '../../generated/cri/runtime/v1/PullImageRequest.js';
export type { PullImageResponse, PullImageResponse__Output } from '../../generated/cri/runtime/v1/PullImageResponse.js';
export type { ReopenContainerLogRequest, ReopenContainerLogRequest__Output } from '../../generated/cri/runtime/v1/ReopenContainerLogRequest.js';
export type { ReopenContainerLogResponse, ReopenContainerLogResponse__Output } from '../../generated/cri/runtime/v1/ReopenContainerLogResponse.js';
export type { RemoveContainerRequest, RemoveContainerRequest__Output } from '../../generated/cri/runtime/v1/RemoveContainerRequest.js';
export type { RemoveContainerResponse, RemoveContainerResponse__Output } from '../../generated/cri/runtime/v1/RemoveContainerResponse.js';
export type { RemoveImageRequest, RemoveImageRequest__Output } from '../../generated/cri/runtime/v1/RemoveImageRequest.js';
export type { RemoveImageResponse, RemoveImageResponse__Output } from '../../generated/cri/runtime/v1/RemoveImageResponse.js';
export type { RemovePodSandboxRequest, RemovePodSandboxRequest__Output } from '../../generated/cri/runtime/v1/RemovePodSandboxRequest.js';
export type { RemovePodSandboxResponse, RemovePodSandboxResponse__Output } from '../../generated/cri/runtime/v1/RemovePodSandboxResponse.js';
export type { RunPodSandboxRequest, RunPodSandboxRequest__Output } from '../../generated/cri/runtime/v1/RunPodSandboxRequest.js';
export type { RunPodSandboxResponse, RunPodSandboxResponse__Output } from '../../generated/cri/runtime/v1/RunPodSandboxResponse.js';
export type { RuntimeCondition, RuntimeCondition__Output } from '../../generated/cri/runtime/v1/RuntimeCondition.js';
export type { RuntimeConfig, RuntimeConfig__Output } from '../../generated/cri/runtime/v1/RuntimeConfig.js';
export type { RuntimeFeatures, RuntimeFeatures__Output } from '../../generated/cri/runtime/v1/RuntimeFeatures.js';
export type { RuntimeHandler, RuntimeHandler__Output } from '../../generated/cri/runtime/v1/RuntimeHandler.js';
export type { RuntimeHandlerFeatures, RuntimeHandlerFeatures__Output } from '../../generated/cri/runtime/v1/RuntimeHandlerFeatures.js';
export type { RuntimeStatus, RuntimeStatus__Output } from '../../generated/cri/runtime/v1/RuntimeStatus.js';
export type { SELinuxOption, SELinuxOption__Output } from '../../generated/cri/runtime/v1/SELinuxOption.js';
export type { SecurityProfile, SecurityProfile__Output } from '../../generated/cri/runtime/v1/SecurityProfile.js';
export { _runtime_v1_SecurityProfile_ProfileType as SecurityProfileType } from '../../generated/cri/runtime/v1/SecurityProfile.js';
export type { StartContainerRequest, StartContainerRequest__Output } from '../../generated/cri/runtime/v1/StartContainerRequest.js';
export type { StartContainerResponse, StartContainerResponse__Output } from '../../generated/cri/runtime/v1/StartContainerResponse.js';
export type { StatusRequest, StatusRequest__Output } from '../../generated/cri/runtime/v1/StatusRequest.js';
export type { StatusResponse, StatusResponse__Output } from '../../generated/cri/runtime/v1/StatusResponse.js';
export type { StopContainerRequest, StopContainerRequest__Output } from '../../generated/cri/runtime/v1/StopContainerRequest.js';
export type { StopContainerResponse, StopContainerResponse__Output } from '../../generated/cri/runtime/v1/StopContainerResponse.js';
export type { StopPodSandboxRequest, StopPodSandboxRequest__Output } from '../../generated/cri/runtime/v1/StopPodSandboxRequest.js';
export type { StopPodSandboxResponse, StopPodSandboxResponse__Output } from '../../generated/cri/runtime/v1/StopPodSandboxResponse.js';
export type { UInt64Value, UInt64Value__Output } from '../../generated/cri/runtime/v1/UInt64Value.js';
export type { UpdateContainerResourcesRequest, UpdateContainerResourcesRequest__Output } from '../../generated/cri/runtime/v1/UpdateContainerResourcesRequest.js';
export type { UpdateContainerResourcesResponse, UpdateContainerResourcesResponse__Output } from '../../generated/cri/runtime/v1/UpdateContainerResourcesResponse.js';
export type { UpdateRuntimeConfigRequest, UpdateRuntimeConfigRequest__Output } from '../../generated/cri/runtime/v1/UpdateRuntimeConfigRequest.js';
export type { UpdateRuntimeConfigResponse, UpdateRuntimeConfigResponse__Output } from '../../generated/cri/runtime/v1/UpdateRuntimeConfigResponse.js';
export type { UserNamespace, UserNamespace__Output } from '../../generated/cri/runtime/v1/UserNamespace.js';
export type { VersionRequest, VersionRequest__Output } from '../../generated/cri/runtime/v1/VersionRequest.js';
export type { VersionResponse, VersionResponse__Output } from '../../generated/cri/runtime/v1/VersionResponse.js';
export type { WindowsContainerConfig, WindowsContainerConfig__Output } from '../../generated/cri/runtime/v1/WindowsContainerConfig.js';
export type { WindowsContainerResources, WindowsContainerResources__Output } from '../../generated/cri/runtime/v1/WindowsContainerResources.js';
export type { WindowsContainerSecurityContext, WindowsContainerSecurityContext__Output } from '../../generated/cri/runtime/v1/WindowsContainerSecurityContext.js';
export type { WindowsCpuGroupAffinity, WindowsCpuGroupAffinity__Output } from '../../generated/cri/runtime/v1/WindowsCpuGroupAffinity.js';
export type { WindowsNamespaceOption, WindowsNamespaceOption__Output } from '../../generated/cri/runtime/v1/WindowsNamespaceOption.js';
export type { WindowsPodSandboxConfig, WindowsPodSandboxConfig__Output } from '../../generated/cri/runtime/v1/WindowsPodSandboxConfig.js';
export type { WindowsSandboxSecurityContext, WindowsSandboxSecurityContext__Output } from '../../generated/cri/runtime/v1/WindowsSandboxSecurityContext.js';

// --- stats ---
export type { ContainerAttributes, ContainerAttributes__Output } from '../../generated/cri/runtime/v1/ContainerAttributes.js';
export type { ContainerStats, ContainerStats__Output } from '../../generated/cri/runtime/v1/ContainerStats.js';
export type { ContainerStatsFilter, ContainerStatsFilter__Output } from '../../generated/cri/runtime/v1/ContainerStatsFilter.js';
export type { ContainerStatsRequest, ContainerStatsRequest__Output } from '../../generated/cri/runtime/v1/ContainerStatsRequest.js';
export type { ContainerStatsResponse, ContainerStatsResponse__Output } from '../../generated/cri/runtime/v1/ContainerStatsResponse.js';
export type { CpuUsage, CpuUsage__Output } from '../../generated/cri/runtime/v1/CpuUsage.js';
export type { LinuxPodSandboxStats, LinuxPodSandboxStats__Output } from '../../generated/cri/runtime/v1/LinuxPodSandboxStats.js';
export type { ListContainerStatsRequest, ListContainerStatsRequest__Output } from '../../generated/cri/runtime/v1/ListContainerStatsRequest.js';
export type { ListContainerStatsResponse, ListContainerStatsResponse__Output } from '../../generated/cri/runtime/v1/ListContainerStatsResponse.js';
export type { ListPodSandboxStatsRequest, ListPodSandboxStatsRequest__Output } from '../../generated/cri/runtime/v1/ListPodSandboxStatsRequest.js';
export type { ListPodSandboxStatsResponse, ListPodSandboxStatsResponse__Output } from '../../generated/cri/runtime/v1/ListPodSandboxStatsResponse.js';
export type { MemoryUsage, MemoryUsage__Output } from '../../generated/cri/runtime/v1/MemoryUsage.js';
export type { NetworkInterfaceUsage, NetworkInterfaceUsage__Output } from '../../generated/cri/runtime/v1/NetworkInterfaceUsage.js';
export type { NetworkUsage, NetworkUsage__Output } from '../../generated/cri/runtime/v1/NetworkUsage.js';
export type { PodSandboxAttributes, PodSandboxAttributes__Output } from '../../generated/cri/runtime/v1/PodSandboxAttributes.js';
export type { PodSandboxStats, PodSandboxStats__Output } from '../../generated/cri/runtime/v1/PodSandboxStats.js';
export type { PodSandboxStatsFilter, PodSandboxStatsFilter__Output } from '../../generated/cri/runtime/v1/PodSandboxStatsFilter.js';
export type { PodSandboxStatsRequest, PodSandboxStatsRequest__Output } from '../../generated/cri/runtime/v1/PodSandboxStatsRequest.js';
export type { PodSandboxStatsResponse, PodSandboxStatsResponse__Output } from '../../generated/cri/runtime/v1/PodSandboxStatsResponse.js';
export type { ProcessUsage, ProcessUsage__Output } from '../../generated/cri/runtime/v1/ProcessUsage.js';
export type { SwapUsage, SwapUsage__Output } from '../../generated/cri/runtime/v1/SwapUsage.js';

export type {
  ContainerLean,
  ContainerStatusLean,
  ContainerStatusReply,
  ImageLean,
  ImageSpecLean,
  ImageStatusReply,
  LinuxPodSandboxStatusLean,
  ListContainersReply,
  ListPodSandboxReply,
  NamespaceOptionLean,
  PodSandboxLean,
  PodSandboxStatusLean,
  PodSandboxStatusReply,
} from './codec/reply-types.js';

export type { RuntimeServiceHandlers, RuntimeServiceDefinition } from '../../generated/cri/runtime/v1/RuntimeService.js';
export type { ImageServiceHandlers, ImageServiceDefinition } from '../../generated/cri/runtime/v1/ImageService.js';
