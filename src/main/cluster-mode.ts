// Everything cluster mode (--kubeconfig) adds, behind one module that the kubelet
// imports only when it has a kubeconfig: @kubernetes/client-node alone costs about
// 90 MiB of RSS, which a standalone node (static pods only) should not pay.
export { loadKubeClients } from './apiclient/kube-client.js';
export { CertificateStore, ClientCertificateRotation, ensureClientCertificate, KUBELET_CLIENT_PREFIX } from './bootstrap/index.js';
export { ApiSource } from './config/api-source.js';
export { StatusManager } from './status/status-manager.js';
export { MirrorPods } from './status/mirror-pods.js';
export { EventRecorder } from './events/event-recorder.js';
export { NodeLeaseController } from './nodestatus/lease-controller.js';
export { NodeStatusManager } from './nodestatus/node-status-manager.js';
export { PodApiDataProvider } from './apidata/pod-api-data.js';
