// Everything cluster mode (--kubeconfig) adds, behind one module that the kubelet
// loads only through boundary.ts, only when it has a kubeconfig:
// @kubernetes/client-node alone costs about 90 MiB of RSS, which a standalone node
// (static pods only) should not pay. What the rest of the kubelet uses of cluster
// mode is exported here and nowhere else.
export { ClusterConnection } from './cluster-connection.js';
// serverTLSBootstrap: KubeletApi asks for its serving certificate once the client certificate is there.
export { ClientCertificateRotation, ensureServingCertificate } from './bootstrap/index.js';
// The kubelet API's webhook authentication and authorization (TokenReview, SubjectAccessReview).
export { accessReviewer, tokenReviewer } from './server/review-clients.js';
