// The shape every stored object has; the rest of an object is free-form JSON.

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    [key: string]: unknown;
  };
  [key: string]: unknown;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export interface StoredEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  resourceVersion: number;
  object: KubeObject;
  /** The object before this change, so that a filtered watch can turn MODIFIED into ADDED or DELETED. */
  previous?: KubeObject;
}
