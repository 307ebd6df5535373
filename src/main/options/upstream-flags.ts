// The rest of upstream's kubelet 1.34 command line (cmd/kubelet/app/options:
// KubeletFlags.AddFlags and AddKubeletConfigFlags, plus component-base's logging
// flags), for the flags flags.ts does not define itself. Each is parsed with its
// upstream type; a flag that sets a KubeletConfiguration field carries the field,
// so it merges over --config and --config-dir as upstream's flag precedence does.

export type UpstreamFlagType =
  | 'string' | 'bool' | 'int' | 'float' | 'duration' | 'strings'
  /** key=value,key2=value2 (mapStringString, e.g. --system-reserved). */
  | 'map'
  /** signal<quantity,... (--eviction-hard, --eviction-soft). */
  | 'eviction';

export type FlagGroup = 'kubelet' | 'config' | 'logging' | 'generic' | 'shardlet';

export interface UpstreamFlag {
  name: string;
  type: UpstreamFlagType;
  /** KubeletConfiguration field it sets (dotted for nested), '' for a flag outside the config. */
  field: string;
  group: FlagGroup;
  /** Upstream's deprecation text, printed once when the flag is used. */
  deprecated?: string;
  help: string;
}

/** What upstream's AddKubeletConfigFlags marks every config-file flag with. */
export const CONFIG_FLAG_DEPRECATION =
  "This parameter should be set via the config file specified by the Kubelet's --config flag. See https://kubernetes.io/docs/tasks/administer-cluster/kubelet-config-file/ for more information.";

const kubelet = (name: string, type: UpstreamFlagType, help: string, deprecated?: string): UpstreamFlag =>
  ({ name, type, field: '', group: 'kubelet', help, ...(deprecated ? { deprecated } : {}) });
const config = (name: string, type: UpstreamFlagType, field: string, help: string): UpstreamFlag =>
  ({ name, type, field, group: 'config', help, deprecated: CONFIG_FLAG_DEPRECATION });
const logging = (name: string, type: UpstreamFlagType, field: string, help: string): UpstreamFlag =>
  ({ name, type, field, group: 'logging', help });

export const UPSTREAM_FLAGS: readonly UpstreamFlag[] = [
  kubelet('config-dir', 'string', 'Directory of drop-in KubeletConfiguration files (*.conf), merged in lexical order over --config'),
  kubelet('bootstrap-kubeconfig', 'string', 'Kubeconfig used to obtain a client certificate when --kubeconfig does not exist (TLS bootstrap)'),
  kubelet('cert-dir', 'string', 'Directory of the TLS certificates; ignored for the files --tls-cert-file and --tls-private-key-file name (default <root-dir>/pki)'),
  kubelet('cloud-provider', 'string', "The provider for cloud services; only 'external' or empty are valid"),
  kubelet('cloud-config', 'string', 'Path of the cloud provider configuration file', 'will be removed in a future version'),
  kubelet('image-credential-provider-config', 'string', 'Path of the credential provider plugin config file'),
  kubelet('image-credential-provider-bin-dir', 'string', 'Directory of the credential provider plugin binaries'),
  kubelet('lock-file', 'string', 'Path of a file the kubelet uses as a lock file'),
  kubelet('exit-on-lock-contention', 'bool', 'Exit on lock-file contention'),
  kubelet('experimental-mounter-path', 'string', 'Path of the mounter binary', 'will be removed in 1.35 or later. in favor of using CSI.'),
  kubelet('minimum-container-ttl-duration', 'duration', 'Minimum age of a finished container before it is garbage collected', 'Use --eviction-hard or --eviction-soft instead. Will be removed in a future version.'),
  kubelet('maximum-dead-containers-per-container', 'int', 'Most old instances kept per container', 'Use --eviction-hard or --eviction-soft instead. Will be removed in a future version.'),
  kubelet('maximum-dead-containers', 'int', 'Most old container instances kept in total; -1 disables', 'Use --eviction-hard or --eviction-soft instead. Will be removed in a future version.'),
  kubelet('pod-infra-container-image', 'string', 'The sandbox image; the runtime decides it', 'will be removed in 1.35. Image garbage collector will get sandbox image information from CRI.'),
  kubelet('runtime-cgroups', 'string', 'Absolute name of the cgroups to create and run the runtime in'),
  kubelet('windows-service', 'bool', 'Run the kubelet as a Windows service (Windows only)'),
  kubelet('windows-priorityclass', 'string', 'Priority class of the kubelet process (Windows only)'),
  config('seccomp-default', 'bool', 'seccompDefault', 'Use RuntimeDefault as the default seccomp profile for all workloads'),
  config('node-status-max-images', 'int', 'nodeStatusMaxImages', 'Most images reported in node status; -1 for no limit'),
  config('pod-max-pids', 'int', 'podPidsLimit', 'Most processes in one pod; -1 for no pod-level limit'),
  config('fail-swap-on', 'bool', 'failSwapOn', 'Fail to start if swap is enabled on the node'),
  config('fail-cgroupv1', 'bool', 'failCgroupV1', 'Fail to start on a cgroup v1 host'),
  config('enable-server', 'bool', 'enableServer', "Enable the kubelet's server"),
  config('address', 'string', 'address', 'IP address the kubelet serves on'),
  config('port', 'int', 'port', 'Port of the kubelet server'),
  config('anonymous-auth', 'bool', 'authentication.anonymous.enabled', 'Allow anonymous requests to the kubelet server'),
  config('authentication-token-webhook', 'bool', 'authentication.webhook.enabled', 'Use the TokenReview API to authenticate bearer tokens'),
  config('authentication-token-webhook-cache-ttl', 'duration', 'authentication.webhook.cacheTTL', 'Cache duration of webhook authentication responses'),
  config('client-ca-file', 'string', 'authentication.x509.clientCAFile', 'CA bundle authenticating client certificates'),
  config('authorization-mode', 'string', 'authorization.mode', 'Authorization mode of the kubelet server: AlwaysAllow or Webhook'),
  config('authorization-webhook-cache-authorized-ttl', 'duration', 'authorization.webhook.cacheAuthorizedTTL', "Cache duration of 'authorized' webhook responses"),
  config('authorization-webhook-cache-unauthorized-ttl', 'duration', 'authorization.webhook.cacheUnauthorizedTTL', "Cache duration of 'unauthorized' webhook responses"),
  config('tls-cert-file', 'string', 'tlsCertFile', 'File of the x509 certificate for HTTPS'),
  config('tls-private-key-file', 'string', 'tlsPrivateKeyFile', 'File of the x509 private key for --tls-cert-file'),
  config('tls-cipher-suites', 'strings', 'tlsCipherSuites', 'Cipher suites of the server'),
  config('tls-min-version', 'string', 'tlsMinVersion', 'Minimum TLS version supported'),
  config('rotate-certificates', 'bool', 'rotateCertificates', 'Rotate the client certificate by requesting new ones from the API server'),
  config('rotate-server-certificates', 'bool', 'serverTLSBootstrap', 'Request and rotate the serving certificate from the API server'),
  config('registry-qps', 'int', 'registryPullQPS', 'Limit of registry pulls per second; 0 for no limit'),
  config('registry-burst', 'int', 'registryBurst', 'Burst of registry pulls'),
  config('event-qps', 'int', 'eventRecordQPS', 'Limit of events created per second; 0 for no limit'),
  config('event-burst', 'int', 'eventBurst', 'Burst of event records'),
  config('enable-debugging-handlers', 'bool', 'enableDebuggingHandlers', 'Enable the server endpoints for log collection and running commands'),
  config('contention-profiling', 'bool', 'enableContentionProfiling', 'Enable block profiling, if profiling is enabled'),
  config('healthz-port', 'int', 'healthzPort', 'Port of the localhost healthz endpoint; 0 disables it'),
  config('healthz-bind-address', 'string', 'healthzBindAddress', 'IP address of the healthz server'),
  config('oom-score-adj', 'int', 'oomScoreAdj', 'oom-score-adj of the kubelet process, in [-1000, 1000]'),
  config('streaming-connection-idle-timeout', 'duration', 'streamingConnectionIdleTimeout', 'Idle time of a streaming connection before it is closed'),
  config('node-status-update-frequency', 'duration', 'nodeStatusUpdateFrequency', 'How often the kubelet computes node status'),
  config('minimum-image-ttl-duration', 'duration', 'imageMinimumGCAge', 'Minimum age of an unused image before it is garbage collected'),
  config('image-gc-high-threshold', 'int', 'imageGCHighThresholdPercent', 'Disk usage percent above which image GC always runs'),
  config('image-gc-low-threshold', 'int', 'imageGCLowThresholdPercent', 'Disk usage percent below which image GC never runs'),
  config('volume-stats-agg-period', 'duration', 'volumeStatsAggPeriod', 'Interval of volume disk usage computation'),
  config('feature-gates', 'map', 'featureGates', 'Feature gates, key=value pairs (unknown gates are an error)'),
  config('kubelet-cgroups', 'string', 'kubeletCgroups', 'Absolute name of the cgroups to create and run the kubelet in'),
  config('system-cgroups', 'string', 'systemCgroups', 'Absolute name of the cgroups for non-kernel processes not already in a cgroup'),
  config('provider-id', 'string', 'providerID', 'Unique identifier of the node in the machine database (cloud provider)'),
  config('cgroup-root', 'string', 'cgroupRoot', 'Root cgroup for pods'),
  config('cgroups-per-qos', 'bool', 'cgroupsPerQOS', 'Create the QoS cgroup hierarchy'),
  config('cgroup-driver', 'string', 'cgroupDriver', "Driver of host cgroups: 'cgroupfs' or 'systemd'"),
  config('cpu-manager-policy', 'string', 'cpuManagerPolicy', 'CPU manager policy: none or static'),
  config('cpu-manager-policy-options', 'map', 'cpuManagerPolicyOptions', 'Options of the CPU manager policy'),
  config('cpu-manager-reconcile-period', 'duration', 'cpuManagerReconcilePeriod', 'CPU manager reconciliation period'),
  config('qos-reserved', 'map', 'qosReserved', 'Resource percentages reserved per QoS level (QOSReserved gate)'),
  config('topology-manager-policy', 'string', 'topologyManagerPolicy', 'Topology manager policy'),
  config('topology-manager-policy-options', 'map', 'topologyManagerPolicyOptions', 'Options of the topology manager policy'),
  config('topology-manager-scope', 'string', 'topologyManagerScope', "Scope of topology hints: 'container' or 'pod'"),
  config('hairpin-mode', 'string', 'hairpinMode', 'How the kubelet sets up hairpin NAT'),
  config('pod-cidr', 'string', 'podCIDR', 'CIDR of pod IPs, standalone mode only'),
  config('cpu-cfs-quota', 'bool', 'cpuCFSQuota', 'Enforce CPU CFS quota for containers with CPU limits'),
  config('cpu-cfs-quota-period', 'duration', 'cpuCFSQuotaPeriod', 'CPU CFS quota period'),
  config('enforce-node-allocatable', 'strings', 'enforceNodeAllocatable', "Node allocatable levels to enforce: 'none', 'pods', 'system-reserved', 'kube-reserved'"),
  config('max-open-files', 'int', 'maxOpenFiles', 'Files the kubelet process may open'),
  config('kube-api-content-type', 'string', 'contentType', 'Content type of requests to the API server'),
  config('kube-api-qps', 'int', 'kubeAPIQPS', 'QPS towards the API server'),
  config('kube-api-burst', 'int', 'kubeAPIBurst', 'Burst towards the API server'),
  config('eviction-hard', 'eviction', 'evictionHard', 'Hard eviction thresholds, e.g. memory.available<1Gi'),
  config('eviction-soft', 'eviction', 'evictionSoft', 'Soft eviction thresholds, e.g. memory.available<1.5Gi'),
  config('eviction-soft-grace-period', 'map', 'evictionSoftGracePeriod', 'Grace periods of soft thresholds, e.g. memory.available=1m30s'),
  config('eviction-pressure-transition-period', 'duration', 'evictionPressureTransitionPeriod', 'Wait before leaving an eviction pressure condition'),
  config('eviction-max-pod-grace-period', 'int', 'evictionMaxPodGracePeriod', 'Longest grace period for soft-eviction terminations'),
  config('eviction-minimum-reclaim', 'map', 'evictionMinimumReclaim', 'Minimum reclaims per signal, e.g. imagefs.available=2Gi'),
  config('pods-per-core', 'int', 'podsPerCore', 'Pods per core; 0 disables the limit'),
  config('protect-kernel-defaults', 'bool', 'protectKernelDefaults', 'Fail if kernel tunables differ from the kubelet defaults'),
  config('reserved-cpus', 'string', 'reservedSystemCPUs', 'CPUs reserved for system and kubernetes daemons'),
  config('memory-manager-policy', 'string', 'memoryManagerPolicy', 'Memory manager policy: None or Static'),
  config('reserved-memory', 'strings', 'reservedMemory', 'Memory reserved per NUMA node, e.g. 0:memory=1Gi'),
  config('system-reserved', 'map', 'systemReserved', 'Resources reserved for non-kubernetes components, e.g. cpu=200m,memory=500Mi'),
  config('kube-reserved', 'map', 'kubeReserved', 'Resources reserved for kubernetes components'),
  config('system-reserved-cgroup', 'string', 'systemReservedCgroup', 'Cgroup of the system-reserved resources'),
  config('kube-reserved-cgroup', 'string', 'kubeReservedCgroup', 'Cgroup of the kube-reserved resources'),
  config('allowed-unsafe-sysctls', 'strings', 'allowedUnsafeSysctls', 'Unsafe sysctls or patterns (ending in *) allowed'),
  config('volume-plugin-dir', 'string', 'volumePluginDir', 'Directory of third-party volume plugins'),
  config('local-storage-capacity-isolation', 'bool', 'localStorageCapacityIsolation', 'Enable local ephemeral storage isolation'),
  config('container-log-max-size', 'string', 'containerLogMaxSize', 'Largest container log file before rotation'),
  config('container-log-max-files', 'int', 'containerLogMaxFiles', 'Most container log files kept'),
  config('container-log-max-workers', 'int', 'containerLogMaxWorkers', 'Concurrent log rotation workers'),
  config('container-log-monitor-interval', 'duration', 'containerLogMonitorInterval', 'Period of the container log monitor'),
  config('enable-controller-attach-detach', 'bool', 'enableControllerAttachDetach', 'Let the attach/detach controller manage volume attachment'),
  config('make-iptables-util-chains', 'bool', 'makeIPTablesUtilChains', 'Ensure iptables utility rules exist on the host'),
  config('iptables-masquerade-bit', 'int', 'iptablesMasqueradeBit', 'fwmark bit for SNAT, in [0, 31]'),
  config('iptables-drop-bit', 'int', 'iptablesDropBit', 'fwmark bit for dropping packets, in [0, 31]'),
  logging('vmodule', 'string', 'logging.vmodule', 'pattern=N settings for file-filtered logging'),
  logging('log-flush-frequency', 'duration', 'logging.flushFrequency', 'Longest time between log flushes'),
  logging('logging-format', 'string', 'logging.format', "Log format: 'text' or 'json'"),
  logging('log-json-split-stream', 'bool', 'logging.options.json.splitStream', 'JSON format: errors to stderr, info to stdout'),
  logging('log-json-info-buffer-size', 'string', 'logging.options.json.infoBufferSize', 'JSON format with split streams: info buffer size'),
  logging('log-text-split-stream', 'bool', 'logging.options.text.splitStream', 'Text format: errors to stderr, info to stdout'),
  logging('log-text-info-buffer-size', 'string', 'logging.options.text.infoBufferSize', 'Text format with split streams: info buffer size'),
];
