// Shared inputs of the node status tests.
import type { NodeHealth } from '../../../../src/main/cluster/nodestatus/conditions.js';

/** A node whose runtime and network are ready and which has no pressure. */
export const HEALTHY: NodeHealth = {
  runtimeReady: true,
  runtimeMessage: '',
  networkReady: true,
  networkMessage: '',
  memoryPressure: false,
  diskPressure: false,
  pidPressure: false,
  shuttingDown: false,
};
