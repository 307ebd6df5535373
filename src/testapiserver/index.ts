// The test API server's public surface.
export { startTestApiServer, type ClientCredentials, type TestApiServer, type TestApiServerOptions } from './server.js';
export type { KubeconfigIdentity } from './kubeconfig.js';
export type { Store } from './store.js';
export type { KubeObject } from './types.js';
export type { RecordedRequest } from './request-log.js';
export { bootstrapTokenSecret } from './bootstrap-token.js';
export { KUBELET_CLIENT_SIGNER, KUBELET_SERVING_SIGNER } from './certificates.js';
