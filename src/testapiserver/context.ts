// What every handler needs: storage, the authenticator and the server's options.
import type { Logger } from 'pino';
import type { AccessRules } from './access-rules.js';
import type { Admit } from './admission.js';
import type { Authenticator } from './auth.js';
import type { Authorizer } from './authz/authorizer.js';
import type { RefusalLog } from './refusals.js';
import type { ResourceDef } from './resources.js';
import type { Store } from './store.js';
import type { ClientIdentity } from './tls.js';

export const DEFAULT_BOOKMARK_INTERVAL_MS = 60_000;
export const DEFAULT_WATCH_TIMEOUT_SECONDS = 1800; // upstream's minRequestTimeout

export interface ServerContext {
  store: Store;
  authenticator: Authenticator;
  /** The client certificate the server shows kubelets (nodes/proxy, pods/log, exec, …). */
  kubeletClient: () => Promise<{ certPem: string; keyPem: string }>;
  /** Node,RBAC (or AlwaysAllow): decides every request and every access review. */
  authorizer: Authorizer;
  /** NodeRestriction and the validation of pods and RBAC objects, on every write (or nothing). */
  admit: Admit;
  /** The tests' grants, as RBAC objects. */
  accessRules: AccessRules;
  /** Every 403 and 422 this server answered. */
  refusals: RefusalLog;
  defaultNodeName?: string;
  bookmarkIntervalMs: number;
  logger?: Logger;
  /** The CA certificate, published in each namespace's kube-root-ca.crt ConfigMap. */
  caPem: string;
  /** Ends each open watch stream, so that stopping the server can end them. */
  openWatches: Set<() => void>;
}

/** A request for a resource, parsed from its URL. */
export interface ResourceRequest {
  def: ResourceDef;
  key: string;
  namespace?: string;
  name?: string;
  subresource?: string;
  query: URLSearchParams;
  /** Who asks (a CSR records its requester). */
  user?: ClientIdentity;
}
