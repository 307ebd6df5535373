// TLS bootstrap and client certificate rotation (--bootstrap-kubeconfig,
// --cert-dir, rotateCertificates): what the kubelet calls before cluster mode.
export { ensureClientCertificate, type BootstrapOutcome, type ClientCertificateBootstrapOptions } from './bootstrap.js';
export { ClientCertificateRotation, rotationDeadline, type ClientCertificateRotationOptions } from './rotation.js';
export { CertificateStore, KUBELET_CLIENT_PREFIX, KUBELET_SERVER_PREFIX, type StoredCertificate } from './cert-store.js';
export { ensureServingCertificate, type ServingCertificateOptions } from './serving.js';
