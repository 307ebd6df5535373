// startTestApiServer: the HTTPS server tests and the bench talk to, with its
// CA, storage and request counters; restart() keeps all three and the port.
import type { IncomingMessage } from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { Duplex } from 'node:stream';
import { AccessRules, type AccessRule } from './access-rules.js';
import { admissionChain, admitAll, type Admit } from './admission.js';
import { ApiError, unauthorized } from './api-error.js';
import { requestAttributesOf } from './authz/attributes.js';
import { alwaysAllowAuthorizer, authorizeOrThrow, nodeAndRbacAuthorizer, upgradeAttributeSets, type Authorizer } from './authz/authorizer.js';
import { seedBootstrapPolicy } from './authz/bootstrap-policy.js';
import { NodeRestriction } from './authz/node-restriction.js';
import { RbacRegistry } from './authz/rbac-registry.js';
import { ClusterRoleAggregator } from './authz/role-aggregation.js';
import { validatePods } from './pod-validation.js';
import { RefusalLog, type Refusal } from './refusals.js';
import { KUBELET_CLIENT_IDENTITY, kubeletTargetOf, proxyUpgrade } from './kubelet-proxy.js';
import { Authenticator } from './auth.js';
import { authenticateBootstrapToken } from './bootstrap-token.js';
import { CsrController, DEFAULT_CLUSTER_SIGNING_DURATION_MS } from './csr-controller.js';
import { DEFAULT_BOOKMARK_INTERVAL_MS, type ServerContext } from './context.js';
import { dispatch, type CountRequest } from './dispatch.js';
import { sendError } from './http-util.js';
import { clientIdentityOf, type KubeconfigIdentity, writeKubeconfigFile } from './kubeconfig.js';
import { RequestLog, type RecordedRequest } from './request-log.js';
import { seedCluster } from './seed.js';
import { DEFAULT_WATCH_HISTORY_SIZE, Store } from './store.js';
import { CertificateAuthority, type ClientIdentity } from './tls.js';
import { loadServerState, pkiDirOf, saveSigningKey, savePort, StoreSaver } from './state-dir.js';

export interface TestApiServerOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  /** Binds every new pod without spec.nodeName to this node (there is no scheduler). */
  defaultNodeName?: string;
  /** Watch events retained per resource; older resourceVersions get 410 Expired. */
  watchHistorySize?: number;
  bookmarkIntervalMs?: number;
  /**
   * Approve the kubelet's CSRs as kube-controller-manager's csrapproving controller
   * does (default true); false leaves them Pending for a test or kubectl to decide.
   */
  autoApproveCsrs?: boolean;
  /** Lifetime of the certificates the CSR signer issues (--cluster-signing-duration; default one year). */
  clusterSigningDurationMs?: number;
  /** Static bearer tokens accepted for the admin identity. */
  adminTokens?: string[];
  /**
   * Keep the CA, the token signing key, every object and the port here, and start
   * from what an earlier process left (see state-dir.ts). Without it all is new.
   */
  stateDir?: string;
  /**
   * What kube-apiserver enforces, each on unless turned off: `authorization`
   * (Node,RBAC; off is AlwaysAllow), `nodeRestriction` (the admission plugin) and
   * `validation` (pods and RBAC objects, with RBAC's escalation check). `false`
   * turns all three off, for a test that is about something else.
   */
  enforce?: boolean | EnforceOptions;
  logger?: Logger;
}

export interface EnforceOptions {
  authorization?: boolean;
  nodeRestriction?: boolean;
  validation?: boolean;
}

export interface TestApiServer {
  url: string;
  port: number;
  caFile: string;
  store: Store;
  writeKubeconfig(file: string, identity: KubeconfigIdentity): Promise<string>;
  /** PEMs for a client of your own (undici, node:https) speaking as this identity, or as any user and groups. */
  clientCredentials(identity: KubeconfigIdentity | ClientIdentity): Promise<ClientCredentials>;
  /** Grant a rule (who may do what, e.g. on nodes/<subresource>) as a ClusterRole and its binding; returns its revocation. */
  allow(rule: AccessRule): () => void;
  /** Every request refused with 403 or 422 since the start (or the last reset): who, verb, resource, name, code, reason. */
  refusals(): Refusal[];
  resetRefusals(): void;
  /** Accept `token` as a bearer token for this user and groups. */
  addToken(token: string, user: string, groups?: string[]): void;
  /** Requests served, keyed `<verb> <resource>[/<subresource>]`, e.g. `patch pods/status`. */
  requestCount(): Record<string, number>;
  resetRequestCount(): void;
  /** Each resource request with who asked and what it named (request-log.ts), oldest first. */
  requestLog(): RecordedRequest[];
  clearRequestLog(): void;
  /** The watches open now, as the request log recorded them. */
  openWatches(): RecordedRequest[];
  /** Stops listening, ends every watch and removes the CA's temp files. */
  stop(): Promise<void>;
  /**
   * Stops and listens again on the same port with the same state and CA;
   * `whileDown` runs in between (e.g. to change the store behind clients' backs).
   */
  restart(options?: { whileDown?: () => void | Promise<void> }): Promise<void>;
}

export interface ClientCredentials {
  caPem: string;
  certPem: string;
  keyPem: string;
}

interface Listener {
  server: https.Server;
  sockets: Set<Socket>;
}

function listen(ctx: ServerContext, ca: CertificateAuthority, port: number, counts: Map<string, number>, requestLog: RequestLog): Promise<Listener> {
  const sockets = new Set<Socket>();
  const server = https.createServer(
    { key: ca.serving.keyPem, cert: ca.serving.certPem, ca: ca.ca.certPem, requestCert: true, rejectUnauthorized: false },
    (req, res) => {
      const user = ctx.authenticator.authenticate(req);
      if (!user) {
        sendError(res, unauthorized());
        return;
      }
      const count: CountRequest = (verb, resource, request) => {
        const key = `${verb} ${resource}`;
        counts.set(key, (counts.get(key) ?? 0) + 1);
        requestLog.record(user, verb, resource, request, res);
      };
      ctx.logger?.debug({ method: req.method, url: req.url }, 'apiserver request');
      dispatch(ctx, req, res, count, user).catch((err: unknown) => sendError(res, err));
    },
  );
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => void serveUpgrade(ctx, req, socket, head, counts));
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve({ server, sockets });
    });
  });
}

/** Upgrades (exec, attach, port-forward, proxied WebSockets) go to the kubelet as raw sockets. */
async function serveUpgrade(ctx: ServerContext, req: IncomingMessage, socket: Duplex, head: Buffer, counts: Map<string, number>): Promise<void> {
  socket.on('error', () => socket.destroy());
  const refuse = (err: ApiError) => {
    const body = JSON.stringify(err.toStatus());
    socket.end(`HTTP/1.1 ${err.code} ${err.reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  };
  const user = ctx.authenticator.authenticate(req);
  if (!user) return refuse(unauthorized());
  const url = new URL(req.url ?? '/', 'https://apiserver.invalid');
  let attributes = requestAttributesOf(req.method ?? 'GET', url, user);
  try {
    for (const asked of upgradeAttributeSets(attributes)) {
      attributes = asked;
      authorizeOrThrow(ctx.authorizer, asked);
    }
    const target = kubeletTargetOf(ctx, url);
    if (!target) return refuse(new ApiError(400, 'BadRequest', `upgrade is not served for ${req.url}`));
    const key = `${req.method === 'GET' ? 'get' : 'create'} ${target.resource}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
    proxyUpgrade(req, socket, head, target, await ctx.kubeletClient());
  } catch (err) {
    const apiError = err instanceof ApiError ? err : new ApiError(500, 'InternalError', (err as Error).message);
    ctx.refusals.record(attributes, apiError);
    refuse(apiError);
  }
}

/** The authorizer and the admission chain the enforce option asks for. */
function enforcement(store: Store, enforce: TestApiServerOptions['enforce']): { authorizer: Authorizer; admit: Admit } {
  const wanted = typeof enforce === 'object' ? enforce : { authorization: enforce ?? true, nodeRestriction: enforce ?? true, validation: enforce ?? true };
  const authorizer = wanted.authorization === false ? alwaysAllowAuthorizer(store) : nodeAndRbacAuthorizer(store);
  const steps: Admit[] = [];
  if (wanted.validation !== false) steps.push(new RbacRegistry(() => authorizer).admit);
  if (wanted.nodeRestriction !== false) steps.push(new NodeRestriction(store).admit);
  if (wanted.validation !== false) steps.push(validatePods);
  return { authorizer, admit: steps.length > 0 ? admissionChain(...steps) : admitAll };
}

async function close(ctx: ServerContext, listener: Listener): Promise<void> {
  for (const endWatch of [...ctx.openWatches]) endWatch();
  const closed = new Promise<void>((resolve) => listener.server.close(() => resolve()));
  for (const socket of listener.sockets) socket.destroy();
  await closed;
}

export async function startTestApiServer(options: TestApiServerOptions = {}): Promise<TestApiServer> {
  const { stateDir } = options;
  const saved = stateDir ? await loadServerState(stateDir) : {};
  const ca = await CertificateAuthority.create(stateDir && pkiDirOf(stateDir));
  const authenticator = new Authenticator(saved.signingKey);
  if (stateDir && !saved.signingKey) await saveSigningKey(stateDir, authenticator.signingKey);
  for (const token of options.adminTokens ?? []) authenticator.addToken(token, { user: 'admin', groups: ['system:masters'] });
  const store = new Store(options.watchHistorySize ?? DEFAULT_WATCH_HISTORY_SIZE);
  if (saved.snapshot) store.restore(saved.snapshot);
  else seedCluster(store, ca.ca.certPem);
  seedBootstrapPolicy(store);
  const aggregator = new ClusterRoleAggregator(store);
  aggregator.start();
  const ctx: ServerContext = {
    store,
    ...enforcement(store, options.enforce),
    authenticator,
    defaultNodeName: options.defaultNodeName,
    bookmarkIntervalMs: options.bookmarkIntervalMs ?? DEFAULT_BOOKMARK_INTERVAL_MS,
    logger: options.logger,
    openWatches: new Set(),
    caPem: ca.ca.certPem,
    kubeletClient: () => ca.clientCert(KUBELET_CLIENT_IDENTITY),
    accessRules: new AccessRules(store),
    refusals: new RefusalLog(options.logger),
  };
  authenticator.bootstrapTokens = (token) => authenticateBootstrapToken(ctx.store, token);
  const csrController = new CsrController(ctx.store, ca.ca, {
    autoApprove: options.autoApproveCsrs ?? true,
    mayCreate: (requester, subresource) =>
      ctx.authorizer.authorize({
        user: requester, verb: 'create', resourceRequest: true, path: '', apiGroup: 'certificates.k8s.io', apiVersion: '*',
        namespace: '', resource: 'certificatesigningrequests', subresource, name: '', fieldSelector: [],
      }).decision === 'allow',
    signingDurationMs: options.clusterSigningDurationMs ?? DEFAULT_CLUSTER_SIGNING_DURATION_MS,
    logger: options.logger,
  });
  csrController.start();
  const saver = stateDir ? new StoreSaver(stateDir, ctx.store) : undefined;
  if (saver) ctx.store.onChange = () => saver.schedule();
  const counts = new Map<string, number>();
  const requestLog = new RequestLog();
  // Back on the port it had, so that the kubeconfigs written before still reach it.
  let listener: Listener | undefined = await listen(ctx, ca, options.port || saved.port || 0, counts, requestLog);
  const port = (listener.server.address() as AddressInfo).port;
  if (stateDir) await savePort(stateDir, port);
  if (saver && !saved.snapshot) await saver.flush();
  const url = `https://127.0.0.1:${port}`;

  const stopListening = async (): Promise<void> => {
    if (listener) await close(ctx, listener);
    listener = undefined;
  };
  return {
    url,
    port,
    caFile: ca.ca.certFile,
    store: ctx.store,
    writeKubeconfig: (file, identity) => writeKubeconfigFile(file, url, ca, identity),
    clientCredentials: async (identity) => {
      const pair = await ca.clientCert('groups' in identity ? identity : clientIdentityOf(identity));
      return { caPem: ca.ca.certPem, certPem: pair.certPem, keyPem: pair.keyPem };
    },
    allow: (rule) => ctx.accessRules.allow(rule),
    refusals: () => ctx.refusals.list(),
    resetRefusals: () => ctx.refusals.clear(),
    addToken: (token, user, groups = []) => authenticator.addToken(token, { user, groups: [...groups, 'system:authenticated'] }),
    requestCount: () => Object.fromEntries(counts),
    resetRequestCount: () => counts.clear(),
    requestLog: () => requestLog.list(),
    clearRequestLog: () => requestLog.clear(),
    openWatches: () => requestLog.openWatches(),
    restart: async (restartOptions = {}) => {
      await stopListening();
      await restartOptions.whileDown?.();
      listener = await listen(ctx, ca, port, counts, requestLog);
    },
    stop: async () => {
      csrController.stop();
      aggregator.stop();
      ctx.authorizer.stop();
      await stopListening();
      await saver?.flush();
      await ca.destroy();
    },
  };
}
