// The one door into cluster mode: the only module of src/main/cluster/ that the
// standalone kubelet loads, and the only dynamic import of it. Everything behind
// index.ts (and @kubernetes/client-node with it) is loaded on the first call, which
// only a kubelet with --kubeconfig makes; test/main/cluster/boundary.test.ts checks
// that no static import reaches past this door.
export type ClusterMode = typeof import('./index.js');

/** Cluster mode's modules; Node's module cache makes every later call return the same ones. */
export function loadClusterMode(): Promise<ClusterMode> {
  return import('./index.js');
}
