// What every service handler of the simulated runtime works on.
import type { Logger } from 'pino';
import type { CallStats } from './call-stats.js';
import type { ContainerEvents } from './container-events.js';
import type { ContainerLifecycle } from './container-lifecycle.js';
import type { ContainerLogWriter } from './container-log-writer.js';
import type { FaultInjector } from './fault-injection.js';
import type { ImageCatalog } from './image-catalog.js';
import type { LatencyModel } from './latency-model.js';
import type { RuntimePersonality } from './personality.js';
import type { StateStore } from './state-store.js';

/** The two conditions the kubelet requires; tests flip them to exercise not-ready paths. */
export interface RuntimeConditions {
  runtimeReady: boolean;
  networkReady: boolean;
}

export interface SimContext {
  /** Which runtime the sim answers as, where runtimes differ. */
  personality: RuntimePersonality;
  store: StateStore;
  lifecycle: ContainerLifecycle;
  /** GetContainerEvents streams, told of every container and sandbox state change. */
  events: ContainerEvents;
  /** Containers' CRI log files. */
  logWriter: ContainerLogWriter;
  latency: LatencyModel;
  catalog: ImageCatalog;
  stats: CallStats;
  logger: Logger;
  /** Failures and delays tests ask for. */
  faults: FaultInjector;
  conditions: RuntimeConditions;
  /** Last pod CIDR handed over by UpdateRuntimeConfig. */
  podCidr: string;
}
