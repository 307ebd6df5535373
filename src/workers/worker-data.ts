// What the main thread gives each worker thread at its start (piscina workerData).
import type { ShardSettings } from '../shared/shard-protocol.js';

export interface WorkerBootData {
  index: number;
  settings: ShardSettings;
  /** Lets a test end the thread on purpose ({ op: 'exit' }), to prove that a lost shard is replaced. */
  faultInjection: boolean;
}

/** The message a new worker sends up (through piscina's 'message' event) to hand over its coordinator port. */
export const PULL_PORT_MESSAGE = 'shardlet:pull-port';
