// Feature gates as upstream's component-base featuregate: --feature-gates takes
// "Name=true,Other=false", the config file's featureGates a map; a name the 1.34
// kubelet does not know is an error ("unrecognized feature gate"), as upstream.

/** Gate names known to the kubelet at 1.34 (k8s.io/kubernetes/pkg/features and component-base). */
export const KNOWN_FEATURE_GATES: ReadonlySet<string> = new Set([
  'AllAlpha', 'AllBeta',
  'AllowDNSOnlyNodeCSR', 'AllowInsecureKubeletCertificateSigningRequests', 'AllowOverwriteTerminationGracePeriodSeconds',
  'AllowParsingUserUIDFromCertAuth', 'AllowServiceLBStatusOnNonLB', 'AllowUnsafeMalformedObjectDeletion',
  'AnonymousAuthConfigurableEndpoints', 'APIResponseCompression', 'APIServerIdentity', 'APIServerTracing', 'APIServingWithRoutine',
  'AuthorizeNodeWithSelectors', 'AuthorizeWithSelectors', 'BtreeWatchCache', 'CBORServingAndStorage',
  'ClearingNominatedNodeNameAfterBinding', 'ClientsAllowCBOR', 'ClientsPreferCBOR', 'CloudControllerManagerWebhook',
  'ClusterTrustBundle', 'ClusterTrustBundleProjection', 'ComponentFlagz', 'ComponentStatusz', 'ConcurrentWatchObjectDecode',
  'ConsistentListFromCache', 'ContainerCheckpoint', 'ContainerRestartRules', 'ContainerStopSignals', 'ContextualLogging',
  'CoordinatedLeaderElection', 'CPUCFSQuotaPeriod', 'CPUManagerPolicyAlphaOptions', 'CPUManagerPolicyBetaOptions',
  'CPUManagerPolicyOptions', 'CRDValidationRatcheting', 'CronJobsScheduledAnnotation', 'CrossNamespaceVolumeDataSource',
  'CSIMigrationPortworx', 'CSIVolumeHealth', 'CustomCPUCFSQuotaPeriod', 'CustomResourceFieldSelectors', 'DeclarativeValidation',
  'DeclarativeValidationTakeover', 'DeploymentReplicaSetTerminatingReplicas', 'DetectCacheInconsistency', 'DisableAllocatorDualWrite',
  'DisableCPUQuotaWithExclusiveCPUs', 'DisableNodeKubeProxyVersion', 'DRAAdminAccess', 'DRAConsumableCapacity', 'DRADeviceBindingConditions',
  'DRADeviceTaints', 'DRAExtendedResource', 'DRAPartitionableDevices', 'DRAPrioritizedList', 'DRAResourceClaimDeviceStatus',
  'DRASchedulerFilterTimeout', 'DynamicResourceAllocation', 'EnvFiles', 'EventedPLEG', 'ExternalServiceAccountTokenSigner',
  'GracefulNodeShutdown', 'GracefulNodeShutdownBasedOnPodPriority', 'HonorPVReclaimPolicy', 'HostnameOverride',
  'HPAConfigurableTolerance', 'HPAScaleToZero', 'ImageMaximumGCAge', 'ImageVolume', 'InOrderInformers', 'InPlacePodVerticalScaling',
  'InPlacePodVerticalScalingAllocatedStatus', 'InPlacePodVerticalScalingExclusiveCPUs', 'InPlacePodVerticalScalingExclusiveMemory',
  'InTreePluginPortworxUnregister', 'InformerResourceVersion', 'JobManagedBy', 'JobPodReplacementPolicy', 'JobSuccessPolicy',
  'KubeletCgroupDriverFromCRI', 'KubeletCrashLoopBackOffMax', 'KubeletEnsureSecretPulledImages', 'KubeletFineGrainedAuthz',
  'KubeletInUserNamespace', 'KubeletPodResourcesDynamicResources', 'KubeletPodResourcesGet', 'KubeletPodResourcesListUseActivePods',
  'KubeletPSI', 'KubeletSeparateDiskGC', 'KubeletServiceAccountTokenForCredentialProviders', 'KubeletTracing', 'KMSv1',
  'ListFromCacheSnapshot', 'LoadBalancerIPMode', 'LocalStorageCapacityIsolationFSQuotaMonitoring', 'LoggingAlphaOptions',
  'LoggingBetaOptions', 'MatchLabelKeysInPodAffinity', 'MatchLabelKeysInPodTopologySpread', 'MatchLabelKeysInPodTopologySpreadSelectorMerge',
  'MaxUnavailableStatefulSet', 'MemoryManager', 'MemoryQoS', 'MultiCIDRServiceAllocator', 'MutableCSINodeAllocatableCount',
  'MutatingAdmissionPolicy', 'NodeInclusionPolicyInPodTopologySpread', 'NodeLogQuery', 'NodeSwap', 'NominatedNodeNameForExpectation',
  'OpenAPIEnums', 'OrderedNamespaceDeletion', 'PodAndContainerStatsFromCRI', 'PodCertificateRequest', 'PodDeletionCost',
  'PodLevelResources', 'PodLifecycleSleepAction', 'PodLifecycleSleepActionAllowZero', 'PodLogsQuerySplitStreams', 'PodObservedGenerationTracking',
  'PodReadyToStartContainersCondition', 'PodSchedulingReadiness', 'PodTopologyLabelsAdmission', 'PortForwardWebsockets',
  'PreferSameTrafficDistribution', 'PreventStaticPodAPIReferences', 'ProcMountType', 'QOSReserved', 'RecoverVolumeExpansionFailure',
  'RecursiveReadOnlyMounts', 'ReduceDefaultCrashLoopBackOffDecay', 'RelaxedDNSSearchValidation', 'RelaxedEnvironmentVariableValidation',
  'ReloadKubeletServerCertificateFile', 'RemoteRequestHeaderUID', 'ResilientWatchCacheInitialization', 'ResourceHealthStatus',
  'RetryGenerateName', 'RotateKubeletServerCertificate', 'RuntimeClassInImageCriAPI', 'SchedulerAsyncAPICalls', 'SchedulerAsyncPreemption',
  'SchedulerPopFromBackoffQ', 'SchedulerQueueingHints', 'SELinuxChangePolicy', 'SELinuxMount', 'SELinuxMountReadWriteOncePod',
  'SeparateTaintEvictionController', 'ServiceAccountNodeAudienceRestriction', 'ServiceAccountTokenJTI', 'ServiceAccountTokenNodeBinding',
  'ServiceAccountTokenNodeBindingValidation', 'ServiceAccountTokenPodNodeInfo', 'ServiceTrafficDistribution', 'SidecarContainers',
  'SizeBasedListCostEstimate', 'StatefulSetAutoDeletePVC', 'StorageCapacityScoring', 'StorageNamespaceIndex', 'StorageVersionAPI',
  'StorageVersionHash', 'StorageVersionMigrator', 'StreamingCollectionEncodingToJSON', 'StreamingCollectionEncodingToProtobuf',
  'StrictCostEnforcementForVAP', 'StrictCostEnforcementForWebhooks', 'StructuredAuthenticationConfiguration',
  'StructuredAuthenticationConfigurationEgressSelector', 'StructuredAuthorizationConfiguration', 'SupplementalGroupsPolicy',
  'SystemdWatchdog', 'TokenRequestServiceAccountUIDValidation', 'TopologyAwareHints', 'TopologyManagerPolicyAlphaOptions',
  'TopologyManagerPolicyBetaOptions', 'TopologyManagerPolicyOptions', 'TranslateStreamCloseWebsocketRequests', 'UnauthenticatedHTTP2DOSMitigation',
  'UnknownVersionInteroperabilityProxy', 'UserNamespacesPodSecurityStandards', 'UserNamespacesSupport', 'VolumeAttributesClass',
  'VolumeLimitScaling', 'WatchCacheInitializationPostStartHook', 'WatchFromStorageWithoutResourceVersion', 'WatchList',
  'WatchListClient', 'WindowsCPUAndMemoryAffinity', 'WindowsGracefulNodeShutdown', 'WinDSR', 'WinOverlay',
]);

/** Why a gate map is invalid (the first unknown name), or undefined. */
export function featureGatesError(gates: Readonly<Record<string, unknown>>): string | undefined {
  const unknown = Object.keys(gates).find((name) => !KNOWN_FEATURE_GATES.has(name));
  return unknown === undefined ? undefined : `unrecognized feature gate: ${unknown}`;
}

/** Parses "A=true,B=false" as pflag's mapStringBool; throws a plain Error naming the bad item. */
export function parseFeatureGates(raw: string): Record<string, boolean> {
  const gates: Record<string, boolean> = {};
  for (const item of raw.split(',').map((part) => part.trim()).filter((part) => part !== '')) {
    const equals = item.indexOf('=');
    if (equals < 0) throw new Error(`missing bool value for ${item}`);
    const name = item.slice(0, equals).trim();
    const value = item.slice(equals + 1).trim().toLowerCase();
    if (!['true', 'false', '1', '0', 't', 'f'].includes(value)) throw new Error(`invalid value of ${name}: ${value}`);
    gates[name] = ['true', '1', 't'].includes(value);
  }
  const reason = featureGatesError(gates);
  if (reason) throw new Error(reason);
  return gates;
}
