// The one resolved set of settings the rest of the kubelet reads: the
// KubeletConfiguration file with upstream's v1beta1 defaults applied, then the
// command-line flags on top (flags win). Durations are in milliseconds and carry
// an `Ms` suffix; nothing here is optional except what upstream leaves nil.

import type { RuntimeCreationLimit } from '../../shared/runtime-creation/creation-limit-setting.js';
import type { ContainerGcPolicy } from '../../shared/kuberuntime/container-gc-policy.js';

/** A node taint as in the v1 Node API (registerWithTaints / --register-with-taints). */
export interface NodeTaint {
  key: string;
  value?: string;
  effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
}

/** What start-up logs once: deprecated flags used, lenient-decoding warnings, settings not acted on yet. */
export interface StartupNotices {
  deprecations: string[];
  decodeWarnings: string[];
  /** Config field paths and --flags given that shardlet accepts but does not act on yet. */
  notActedOn: string[];
  /** Settings that work only on some clusters (--node-labels only OpenShift admits). */
  clusterWarnings: string[];
  /** component-base's "Setting GA/deprecated feature gate …" warnings. */
  featureGateWarnings: string[];
}

/** The kubelet API server (:10250), its authentication and authorization, and the localhost healthz port. */
export interface KubeletServerOptions {
  /** enableServer: false serves no :10250 at all. */
  enableServer: boolean;
  address: string;
  port: number;
  /** Go's names as given ("VersionTLS12", "TLS_ECDHE_…"); '' and [] keep the defaults. */
  tlsMinVersion: string;
  tlsCipherSuites: string[];
  /** authentication.x509.clientCAFile; '' accepts no client certificates. */
  clientCAFile: string;
  anonymousAuth: boolean;
  webhookAuthentication: boolean;
  webhookAuthenticationCacheTtlMs: number;
  /** authorization.mode as given: AlwaysAllow or Webhook (checked at start-up). */
  authorizationMode: string;
  webhookAuthorizedCacheTtlMs: number;
  webhookUnauthorizedCacheTtlMs: number;
  /** false answers logs, exec, attach, portForward, run and containerLogs as upstream does when they are off. */
  enableDebuggingHandlers: boolean;
  /** KubeletFineGrainedAuthz: /pods, /healthz, /configz authorized as their own subresource before nodes/proxy. */
  fineGrainedAuthz: boolean;
  healthzBindAddress: string;
  /** 0 disables the plain-HTTP healthz server. */
  healthzPort: number;
  /** The resolved KubeletConfiguration fields (durations in ms), for /configz. */
  resolvedConfig: Record<string, unknown>;
}

/** Container log rotation (upstream's ContainerLogManager policy). */
export interface ContainerLogOptions {
  /** containerLogMaxSize as bytes: a live log file at least this big is rotated. */
  maxSizeBytes: number;
  /** containerLogMaxFiles: files kept per container, the live one included (>= 2). */
  maxFiles: number;
  /** containerLogMaxWorkers: containers rotated at once (>= 1). */
  maxWorkers: number;
  /** containerLogMonitorInterval: how often log sizes are checked (>= 3 s). */
  monitorIntervalMs: number;
}

/** One entry of shutdownGracePeriodByPodPriority: pods of at least this priority get this long at node shutdown. */
export interface ShutdownGracePeriodByPodPriority {
  priority: number;
  shutdownGracePeriodSeconds: number;
}

/** Graceful node shutdown, as upstream's nodeshutdown.Config. */
export interface NodeShutdownOptions {
  /** The GracefulNodeShutdown gate (on by default, as upstream). */
  enabled: boolean;
  /** The GracefulNodeShutdownBasedOnPodPriority gate: without it shutdownGracePeriodByPodPriority is not read. */
  byPodPriorityEnabled: boolean;
  gracePeriodMs: number;
  criticalPodsGracePeriodMs: number;
  byPodPriority: ShutdownGracePeriodByPodPriority[];
  /** shardlet's own --logind-conf-dir: where the 99-kubelet.conf drop-in goes (upstream's fixed /etc/systemd/logind.conf.d). */
  logindConfDir: string;
}

export interface KubeletOptions {
  /** Path of the KubeletConfiguration file (--config), '' when none was given. */
  configFile: string;
  /** --config-dir of drop-in KubeletConfiguration files, '' when none was given. */
  configDir: string;
  /** --bootstrap-kubeconfig, '' when none was given; --kubeconfig wins when it is usable, as upstream. */
  bootstrapKubeconfig: string;
  /** --cert-dir; <rootDir>/pki by default, as upstream. */
  certDir: string;
  rotateCertificates: boolean;
  serverTLSBootstrap: boolean;
  /** Serving certificate and key files (tlsCertFile / --tls-cert-file), '' when not set; checked readable at start-up. */
  tlsCertFile: string;
  tlsPrivateKeyFile: string;
  startupNotices: StartupNotices;
  /** Path of the kubeconfig (--kubeconfig); '' runs standalone (static pods only). */
  kubeconfig: string;
  /** Lowercased node name: --hostname-override, else os.hostname(). */
  nodeName: string;
  /** First --node-ip; '' lets the kubelet detect the host IP. */
  nodeIP: string;
  /** Every --node-ip given (dual-stack nodes give two). */
  nodeIPs: string[];
  /** CRI runtime endpoint (containerRuntimeEndpoint / --container-runtime-endpoint). */
  runtimeEndpoint: string;
  /** CRI image endpoint; the runtime endpoint when not set, as upstream. */
  imageEndpoint: string;
  rootDir: string;
  podLogsDir: string;
  /** volumeStatsAggPeriod: how often each pod's volumes are measured; negative turns volume stats off. */
  volumeStatsAggPeriodMs: number;
  /** Shard worker threads; 0 runs shard code on the main thread. */
  workers: number;
  /** klog-style verbosity, 0–10. */
  verbosity: number;
  /** Port of the read-only status server on 127.0.0.1; 0 disables it. */
  readOnlyPort: number;
  /** Test-only: lets tests end a shard thread on purpose (--fault-injection). */
  faultInjection: boolean;
  /** The PLEG's full relist period (--pleg-relist-period); upstream's 1 s when absent. */
  plegRelistPeriodMs?: number;
  /** The runtime contention guard (--runtime-creation-limit): adaptive, a fixed limit, or off. */
  runtimeCreationLimit: RuntimeCreationLimit;

  // Pod sources.
  staticPodPath: string;
  staticPodURL: string;
  staticPodURLHeader: Record<string, string[]>;
  fileCheckFrequencyMs: number;
  httpCheckFrequencyMs: number;

  // Sync loop, runtime and images.
  syncFrequencyMs: number;
  runtimeRequestTimeoutMs: number;
  /** Idle time after which an exec, attach or port-forward connection is closed. */
  streamingConnectionIdleTimeoutMs: number;
  serializeImagePulls: boolean;
  /** undefined means no limit, as upstream's nil. */
  maxParallelImagePulls?: number;
  registryPullQPS: number;
  registryBurst: number;
  /** Image garbage collection; a high threshold of 100 turns it off, as upstream. */
  imageGC: {
    highThresholdPercent: number;
    lowThresholdPercent: number;
    minAgeMs: number;
    /** 0: no age limit (also when the ImageMaximumGCAge gate is off). */
    maxAgeMs: number;
    periodMs: number;
  };
  /**
   * Dead container garbage collection: upstream's GCPolicy from --minimum-container-ttl-duration,
   * --maximum-dead-containers-per-container and --maximum-dead-containers, and the node-wide
   * pass's period (shardlet's own --container-gc-period; upstream's fixed ContainerGCPeriod).
   */
  containerGC: ContainerGcPolicy & { periodMs: number };

  // Admission and pod settings.
  maxPods: number;
  podsPerCore: number;
  /** -1 means no pod-level limit, as upstream. */
  podPidsLimit: number;
  clusterDNS: string[];
  clusterDomain: string;
  resolvConf: string;
  cgroupDriver: string;
  cgroupRoot: string;
  cgroupsPerQOS: boolean;
  /** Node allocatable levels enforced on cgroups ('none' dropped): 'pods' limits the kubepods cgroup. */
  enforceNodeAllocatable: string[];
  systemReserved: Record<string, string>;
  kubeReserved: Record<string, string>;
  evictionHard: Record<string, string>;
  /** The eviction manager's settings beyond evictionHard (which also feeds node allocatable). */
  eviction: {
    soft: Record<string, string>;
    softGracePeriodMs: Record<string, number>;
    minimumReclaim: Record<string, string>;
    pressureTransitionPeriodMs: number;
    maxPodGracePeriodSeconds: number;
    /** shardlet's own --eviction-monitoring-period; upstream's fixed 10 s. */
    monitoringPeriodMs: number;
  };
  featureGates: Record<string, boolean>;
  /** Namespaced sysctls (or prefixes ending in '*') pods may set beyond the safe ones; checked at start-up. */
  allowedUnsafeSysctls: string[];

  // API server, node registration, status and lease.
  kubeAPIQPS: number;
  kubeAPIBurst: number;
  eventRecordQPS: number;
  eventBurst: number;
  registerNode: boolean;
  nodeLabels: Record<string, string>;
  registerWithTaints: NodeTaint[];
  providerID: string;
  podCIDR: string;
  nodeStatusUpdateFrequencyMs: number;
  nodeStatusReportFrequencyMs: number;
  nodeStatusMaxImages: number;
  nodeLeaseDurationSeconds: number;

  // Kubelet API server (:10250) and healthz.
  kubeletServer: KubeletServerOptions;
  nodeShutdown: NodeShutdownOptions;
  // Container logs.
  containerLogs: ContainerLogOptions;
}
