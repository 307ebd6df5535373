// Everything cluster mode (--kubeconfig) adds, behind one module that the kubelet
// imports only when it has a kubeconfig: @kubernetes/client-node alone costs about
// 90 MiB of RSS, which a standalone node (static pods only) should not pay.
export { ClusterConnection } from './cluster-connection.js';
