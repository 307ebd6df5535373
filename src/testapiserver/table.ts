// meta.k8s.io/v1 Table output for `kubectl get`: kubectl no longer prints pods or
// nodes itself, so the server renders the columns (as upstream's
// pkg/printers/internalversion printPod / printNode do, simplified).
import type { KubeObject } from './types.js';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

interface Column {
  name: string;
  type: string;
  format?: string;
  priority?: number;
  description: string;
  cells: (obj: Obj) => unknown;
}

/** Human age as kubectl prints it (`45s`, `3m12s`, `5h`, `2d`). */
export function humanAge(timestamp: string | undefined, now = Date.now()): string {
  if (!timestamp) return '<unknown>';
  const seconds = Math.max(0, Math.floor((now - Date.parse(timestamp)) / 1000));
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) return `${minutes}m${seconds % 60}s`;
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours}h`;
  return `${Math.floor(hours / 24)}d`;
}

/** The STATUS column: the pod's reason, else the first container's waiting or terminated reason, else the phase. */
export function podStatusReason(pod: Obj): string {
  const status = pod.status ?? {};
  let reason: string = status.reason ?? status.phase ?? 'Unknown';
  const initStatuses: Obj[] = status.initContainerStatuses ?? [];
  const initCount = (pod.spec?.initContainers ?? []).length;
  for (const [i, c] of initStatuses.entries()) {
    if (c.state?.terminated?.exitCode === 0) continue;
    if (c.state?.terminated) return c.state.terminated.reason ? `Init:${c.state.terminated.reason}` : `Init:ExitCode:${c.state.terminated.exitCode}`;
    if (c.state?.waiting?.reason && c.state.waiting.reason !== 'PodInitializing') return `Init:${c.state.waiting.reason}`;
    return `Init:${i}/${initCount}`;
  }
  for (const c of [...(status.containerStatuses ?? [])].reverse()) {
    if (c.state?.waiting?.reason) reason = c.state.waiting.reason;
    else if (c.state?.terminated?.reason) reason = c.state.terminated.reason;
    else if (c.state?.terminated) reason = c.state.terminated.signal ? `Signal:${c.state.terminated.signal}` : `ExitCode:${c.state.terminated.exitCode}`;
  }
  if (pod.metadata.deletionTimestamp) reason = status.reason === 'NodeLost' ? 'Unknown' : 'Terminating';
  return reason;
}

const POD_COLUMNS: Column[] = [
  { name: 'Name', type: 'string', format: 'name', description: 'Name of the pod', cells: (p) => p.metadata.name },
  {
    name: 'Ready', type: 'string', description: 'Ready containers / containers',
    cells: (p) => `${(p.status?.containerStatuses ?? []).filter((c: Obj) => c.ready).length}/${(p.spec?.containers ?? []).length}`,
  },
  { name: 'Status', type: 'string', description: 'The aggregate status of the containers', cells: podStatusReason },
  {
    name: 'Restarts', type: 'string', description: 'Restarts of the containers',
    cells: (p) => String((p.status?.containerStatuses ?? []).reduce((n: number, c: Obj) => n + (c.restartCount ?? 0), 0)),
  },
  { name: 'Age', type: 'string', description: 'Time since creation', cells: (p) => humanAge(p.metadata.creationTimestamp) },
  { name: 'IP', type: 'string', priority: 1, description: 'Pod IP', cells: (p) => p.status?.podIP ?? '<none>' },
  { name: 'Node', type: 'string', priority: 1, description: 'Node the pod is bound to', cells: (p) => p.spec?.nodeName ?? '<none>' },
  { name: 'Nominated Node', type: 'string', priority: 1, description: 'Nominated node', cells: (p) => p.status?.nominatedNodeName ?? '<none>' },
  {
    name: 'Readiness Gates', type: 'string', priority: 1, description: 'Readiness gates',
    cells: (p) => (p.spec?.readinessGates?.length ? `0/${p.spec.readinessGates.length}` : '<none>'),
  },
];

function nodeStatus(node: Obj): string {
  const ready = (node.status?.conditions ?? []).find((c: Obj) => c.type === 'Ready');
  const states = [ready?.status === 'True' ? 'Ready' : ready?.status === 'False' ? 'NotReady' : 'Unknown'];
  if (node.spec?.unschedulable) states.push('SchedulingDisabled');
  return states.join(',');
}

function nodeRoles(node: Obj): string {
  const prefix = 'node-role.kubernetes.io/';
  const roles = Object.keys(node.metadata.labels ?? {}).filter((k) => k.startsWith(prefix)).map((k) => k.slice(prefix.length));
  return roles.length ? roles.sort().join(',') : '<none>';
}

function nodeAddress(node: Obj, type: string): string {
  return (node.status?.addresses ?? []).find((a: Obj) => a.type === type)?.address ?? '<none>';
}

const NODE_COLUMNS: Column[] = [
  { name: 'Name', type: 'string', format: 'name', description: 'Name of the node', cells: (n) => n.metadata.name },
  { name: 'Status', type: 'string', description: 'Node readiness', cells: nodeStatus },
  { name: 'Roles', type: 'string', description: 'Node roles', cells: nodeRoles },
  { name: 'Age', type: 'string', description: 'Time since creation', cells: (n) => humanAge(n.metadata.creationTimestamp) },
  { name: 'Version', type: 'string', description: 'Kubelet version', cells: (n) => n.status?.nodeInfo?.kubeletVersion ?? '' },
  { name: 'Internal-IP', type: 'string', priority: 1, description: 'Internal IP', cells: (n) => nodeAddress(n, 'InternalIP') },
  { name: 'External-IP', type: 'string', priority: 1, description: 'External IP', cells: (n) => nodeAddress(n, 'ExternalIP') },
  { name: 'OS-Image', type: 'string', priority: 1, description: 'OS image', cells: (n) => n.status?.nodeInfo?.osImage ?? '<unknown>' },
  { name: 'Kernel-Version', type: 'string', priority: 1, description: 'Kernel version', cells: (n) => n.status?.nodeInfo?.kernelVersion ?? '<unknown>' },
  { name: 'Container-Runtime', type: 'string', priority: 1, description: 'Container runtime', cells: (n) => n.status?.nodeInfo?.containerRuntimeVersion ?? '<unknown>' },
];

const DEFAULT_COLUMNS: Column[] = [
  { name: 'Name', type: 'string', format: 'name', description: 'Name of the object', cells: (o) => o.metadata.name },
  { name: 'Age', type: 'string', description: 'Time since creation', cells: (o) => humanAge(o.metadata.creationTimestamp) },
];

const NAMESPACE_COLUMNS: Column[] = [
  DEFAULT_COLUMNS[0],
  { name: 'Status', type: 'string', description: 'The namespace phase', cells: (ns) => ns.status?.phase ?? '' },
  DEFAULT_COLUMNS[1],
];

/** The CONDITION column, as upstream's printer's extractCSRStatus: Denied over Approved over Pending, then Failed and Issued. */
export function csrCondition(csr: Obj): string {
  const conditions: Obj[] = csr.status?.conditions ?? [];
  const has = (type: string): boolean => conditions.some((c) => c.type === type);
  let condition = has('Denied') ? 'Denied' : has('Approved') ? 'Approved' : 'Pending';
  if (has('Failed')) condition += ',Failed';
  if (csr.status?.certificate) condition += ',Issued';
  return condition;
}

/** Go's duration.HumanDuration for the REQUESTEDDURATION column. */
function requestedDuration(csr: Obj): string {
  const seconds = csr.spec?.expirationSeconds;
  if (typeof seconds !== 'number') return '<none>';
  return humanAge(new Date(Date.now() - seconds * 1000).toISOString());
}

const CSR_COLUMNS: Column[] = [
  DEFAULT_COLUMNS[0],
  DEFAULT_COLUMNS[1],
  { name: 'SignerName', type: 'string', description: 'The signer the request is for', cells: (c) => c.spec?.signerName ?? '' },
  { name: 'Requestor', type: 'string', description: 'Name of the requesting user', cells: (c) => c.spec?.username ?? '' },
  { name: 'RequestedDuration', type: 'string', description: 'The requested lifetime', cells: requestedDuration },
  { name: 'Condition', type: 'string', description: 'The request\'s approval and issuance', cells: csrCondition },
];

function columnsFor(resourceKey: string): Column[] {
  if (resourceKey === 'certificatesigningrequests.certificates.k8s.io') return CSR_COLUMNS;
  if (resourceKey === 'pods') return POD_COLUMNS;
  if (resourceKey === 'namespaces') return NAMESPACE_COLUMNS;
  if (resourceKey === 'nodes') return NODE_COLUMNS;
  return DEFAULT_COLUMNS;
}

export function toTable(resourceKey: string, objects: KubeObject[], resourceVersion: string, includeObject: string | null): object {
  const columns = columnsFor(resourceKey);
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: { resourceVersion },
    columnDefinitions: columns.map(({ cells: _cells, ...definition }) => ({ priority: 0, format: '', ...definition })),
    rows: objects.map((obj) => ({
      cells: columns.map((c) => c.cells(obj as Obj)),
      object: rowObject(obj, includeObject),
    })),
  };
}

function rowObject(obj: KubeObject, includeObject: string | null): object | undefined {
  if (includeObject === 'None') return undefined;
  if (includeObject === 'Object') return obj;
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: obj.metadata };
}
