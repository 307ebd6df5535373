// The KubeletConfiguration `npm start` runs with: a config file, as every kubelet
// should have (without one the legacy defaults serve :10250 to anyone on every
// interface: anonymous auth on, AlwaysAllow), holding what upstream's guide for a
// standalone kubelet sets. The kubelet API listens on 127.0.0.1 only; anonymous
// requests are refused; with no API server to ask there is no TokenReview and no
// SubjectAccessReview, so the only way in is a client certificate from the demo's
// own CA, whose key is written for the user running the demo alone; the read-only
// port and the healthz port stay off. The simulated runtime runs no processes, so
// pods get no cgroups: the demo never writes the host's cgroup tree (and runs
// without root).

export const DEMO_API_ADDRESS = '127.0.0.1';

export interface DemoConfigPaths {
  /** The simulated runtime's endpoint (unix://…). */
  runtimeEndpoint: string;
  /** The example static pods, copied where the user may edit them. */
  staticPodPath: string;
  /** The demo CA's certificate: the one client certificate it signed is the way in. */
  clientCAFile: string;
  /** Container logs of the demo, kept out of /var/log/pods. */
  podLogsDir: string;
  /** The kubelet API's port (10250 unless the environment says otherwise). */
  port: number;
}

/** The demo's kubelet.config.k8s.io/v1beta1 KubeletConfiguration. */
export function demoKubeletConfig(paths: DemoConfigPaths): Record<string, unknown> {
  return {
    apiVersion: 'kubelet.config.k8s.io/v1beta1',
    kind: 'KubeletConfiguration',
    containerRuntimeEndpoint: paths.runtimeEndpoint,
    staticPodPath: paths.staticPodPath,
    podLogsDir: paths.podLogsDir,
    cgroupsPerQOS: false,
    enforceNodeAllocatable: ['none'],
    address: DEMO_API_ADDRESS,
    port: paths.port,
    readOnlyPort: 0,
    healthzPort: 0,
    authentication: {
      anonymous: { enabled: false },
      webhook: { enabled: false },
      x509: { clientCAFile: paths.clientCAFile },
    },
    // Standalone: no API server to send a SubjectAccessReview to. Only holders of the demo CA's certificate get this far.
    authorization: { mode: 'AlwaysAllow' },
  };
}

/** The kubelet's command line in the demo: the config file, and only flags that are not deprecated. */
export function demoKubeletFlags(configFile: string, rootDir: string): string[] {
  return [`--config=${configFile}`, `--root-dir=${rootDir}`, '--hostname-override=demo-node', '--workers=2'];
}
