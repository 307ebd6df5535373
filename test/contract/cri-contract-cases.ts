// The CRI contract as one table: every statement of the CRI spec (cri-api's
// api.proto) and of cri-tools' validation suite (critest, pkg/validate) that a
// runtime a kubelet can trust keeps, written as cases that run against a CRI
// client. cri-contract-sim.test.ts runs it against the simulated runtime,
// cri-contract-containerd.test.ts against the project's containerd, so the table
// itself is checked against a real runtime. What critest checks that only real
// kernel isolation or images these machines do not have can show is listed in
// SKIPPED_SPECS with the reason.
import { CONTAINER_CASES } from './cases/container-cases.js';
import { EXEC_CASES } from './cases/exec-cases.js';
import { IMAGE_CASES } from './cases/image-cases.js';
import { LOG_CASES } from './cases/log-cases.js';
import { SANDBOX_CASES } from './cases/sandbox-cases.js';
import type { ContractCase, SkippedSpec } from './contract-context.js';

export const CRI_CONTRACT_CASES: readonly ContractCase[] = [...SANDBOX_CASES, ...CONTAINER_CASES, ...EXEC_CASES, ...LOG_CASES, ...IMAGE_CASES];

const KERNEL = 'needs real kernel isolation, which the simulated runtime does not model (it runs no process)';

export const SKIPPED_SPECS: readonly SkippedSpec[] = [
  { name: 'Security Context NamespaceOption: HostPID, HostIpc true/false, PodPID, ContainerPID', reason: `${KERNEL}: PID and IPC namespaces (and nginx/ipcmk on the host)` },
  { name: 'Security Context NamespaceOption: HostNetwork true/false', reason: `${KERNEL}: network namespaces, netstat of the host's listening sockets` },
  { name: 'Security Context: Privileged true/false, setting Capability (brctl addbr)', reason: `${KERNEL}: capabilities and device access` },
  { name: 'Security Context: MaskedPaths, ReadonlyPaths', reason: `${KERNEL}: mount masking of /proc and /sys paths` },
  { name: 'Security Context: ReadOnlyRootfs true/false', reason: `${KERNEL}: a read-only root mount` },
  { name: 'Security Context SeccompProfilePath (unconfined, localhost/, runtime/default, sethostname blocks)', reason: `${KERNEL}: seccomp filters` },
  { name: 'Security Context NoNewPrivs', reason: `${KERNEL}: setuid binaries and no_new_privs (and the nonewprivs image)` },
  { name: 'AppArmor and SELinux specs', reason: `${KERNEL}: LSMs, not enabled on these machines either` },
  { name: 'Container Mount Propagation (rprivate, rshared, rslave) and recursive read-only mounts', reason: `${KERNEL}: mount namespaces and propagation` },
  { name: 'Container: starting container with volume / symlink host path', reason: `${KERNEL}: bind mounts of host paths into the container's mount namespace` },
  { name: 'Networking: port mapping with container port / host port; Multiple Containers "should support network"', reason: `${KERNEL}: network namespaces and CNI; the nginx and httpd images are not in the local registry` },
  { name: 'Streaming: attach, port forward', reason: 'attach needs a process reading stdin and port-forward a server in the pod network; the sim runs neither (exec is in the table)' },
  { name: 'PodSandbox metrics (ListMetricDescriptors, ListPodSandboxMetrics)', reason: 'not in the project\'s CRI proto; containerd 1.6 does not implement them either' },
  { name: 'Image volumes, user namespaces, CDI devices, NRI', reason: 'newer CRI features containerd 1.6 does not have and shardlet does not use' },
];
