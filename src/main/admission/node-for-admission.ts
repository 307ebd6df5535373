// What admission knows of this node: its name, labels, NoExecute taints and
// allocatable resources (capacity less systemReserved and kubeReserved; pods =
// maxPods), as upstream's kubelet reads them from its own node object.
import { availableParallelism, totalmem } from 'node:os';
import type { NodeFeaturesForAdmission, NodeInfoForAdmission } from '../../shared/admission/admit-pod.js';
import { parseBytes, parseCpuMillis } from '../../shared/quantity.js';
import type { KubeletOptions } from '../options/kubelet-options.js';

function reserved(options: KubeletOptions, resource: 'cpu' | 'memory'): number {
  const parse = resource === 'cpu' ? parseCpuMillis : parseBytes;
  return [options.systemReserved, options.kubeReserved].reduce((sum, reservation) => {
    const quantity = reservation?.[resource];
    return sum + (quantity === undefined ? 0 : parse(quantity));
  }, 0);
}

export function nodeForAdmission(options: KubeletOptions, features?: NodeFeaturesForAdmission): NodeInfoForAdmission {
  const arch = process.arch === 'x64' ? 'amd64' : process.arch;
  return {
    name: options.nodeName,
    ...(features ? { features } : {}),
    labels: {
      'kubernetes.io/hostname': options.nodeName,
      'kubernetes.io/os': 'linux',
      'kubernetes.io/arch': arch,
      ...options.nodeLabels,
    },
    taints: options.registerWithTaints,
    allocatable: {
      cpuMillis: availableParallelism() * 1000 - reserved(options, 'cpu'),
      memoryBytes: totalmem() - reserved(options, 'memory'),
      pods: options.maxPods,
    },
  };
}
