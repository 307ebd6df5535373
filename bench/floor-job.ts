// What the bench hands the floor's bare client process, and what it reports back.
import type { ImagePulls } from './scenarios.js';

export const FLOOR_NAMESPACE = 'bench-floor';
/** Marks the floor's sandboxes, for cleanup on containerd. */
export const FLOOR_LABEL = 'shardlet.bench/floor';

export interface FloorJob {
  endpoint: string;
  pods: number;
  images: string[];
  imagePulls: ImagePulls;
  /** Makes sandbox UIDs unique per invocation. */
  runId: string;
  logDir: string;
}

export interface FloorClientReport {
  startedAtMs: number;
  /** When each pod's app container had started, in pod order. */
  runningAtMs: number[];
  calls: Partial<Record<string, number>>;
  /** The client's own CPU time while it worked. */
  cpuSeconds: number;
}
