// The kubelet API as the kubelet starts it: the serving certificate, the client
// CA, the authentication and authorization chain from the settings (webhooks
// through the kubelet's kubeconfig), the TLS server on address:port and the
// plain healthz server. Start-up fails naming the setting at fault, as upstream's
// BuildAuth and InitializeTLS do.
import type { Logger } from 'pino';
import { ErrorCodes, ShardletError } from '../../shared/errors.js';
import { detectHostIP } from '../node-ip.js';
import { loadClusterMode } from '../cluster/boundary.js';
import type { KubeletOptions } from '../options/kubelet-options.js';
import { RequestAuthenticator } from './authenticator.js';
import { DynamicClientCa } from './client-ca.js';
import { RequestAuthorizer, type AuthorizationMode } from './authorizer.js';
import type { Health } from './healthz.js';
import { HealthzServer } from './healthz-server.js';
import type { KubeletRoutes } from './kubelet-routes.js';
import { KubeletServer } from './kubelet-server.js';
import { loadServingPair } from './serving-certificate.js';
import { nodeTlsSettings } from './tls-settings.js';

export interface KubeletApiDeps {
  options: KubeletOptions;
  routes: KubeletRoutes;
  healthy: () => Health;
  logger: Logger;
}

export class KubeletApi {
  private server?: KubeletServer;
  private healthz?: HealthzServer;
  private servingRotation?: { stop(): void };
  private clientCa?: DynamicClientCa;
  /** The port :10250 bound (the configured port when the server is off, as upstream still advertises it). */
  port: number;
  /** The healthz port bound; 0 when disabled. */
  healthzPort = 0;

  constructor(private readonly deps: KubeletApiDeps) {
    this.port = deps.options.kubeletServer.port;
  }

  /** Binds the healthz port and, unless enableServer is false, the kubelet API's port. */
  async start(): Promise<void> {
    const { options, logger } = this.deps;
    const settings = options.kubeletServer;
    if (settings.healthzPort !== 0) {
      this.healthz = new HealthzServer(this.deps.healthy);
      this.healthzPort = await this.healthz.listen(settings.healthzBindAddress, settings.healthzPort);
      logger.info({ address: settings.healthzBindAddress, port: this.healthzPort }, 'Healthz server listening');
    }
    if (!settings.enableServer) {
      logger.info('enableServer is false: the kubelet API is not served');
      return;
    }
    const bootstrapServing = options.serverTLSBootstrap;
    if (bootstrapServing && !options.kubeconfig) {
      throw new ShardletError(ErrorCodes.CONFIG_INVALID, 'serverTLSBootstrap (--rotate-server-certificates): no client provided, cannot request a serving certificate; set --kubeconfig', { field: 'serverTLSBootstrap' });
    }
    const pair = bootstrapServing
      ? undefined
      : await loadServingPair({ tlsCertFile: options.tlsCertFile, tlsPrivateKeyFile: options.tlsPrivateKeyFile, certDir: options.certDir, nodeName: options.nodeName, addresses: this.nodeAddresses() });
    if (settings.clientCAFile) {
      this.clientCa = await DynamicClientCa.load(settings.clientCAFile, logger);
    }
    const server = new KubeletServer(this.deps.routes, {
      nodeName: options.nodeName,
      authenticator: await this.authenticator(),
      authorizer: await this.authorizer(),
      fineGrainedAuthz: settings.fineGrainedAuthz,
      debuggingHandlers: settings.enableDebuggingHandlers,
      tls: nodeTlsSettings(settings.tlsMinVersion, settings.tlsCipherSuites),
      clientCa: this.clientCa,
      logger,
    });
    this.port = await server.listen(settings.address, settings.port, pair);
    this.server = server;
    this.clientCa?.start();
    logger.info({ address: settings.address, port: this.port, certFile: pair?.certFile ?? 'serverTLSBootstrap', authorizationMode: settings.authorizationMode }, 'Kubelet API server listening');
  }

  /**
   * serverTLSBootstrap, once the client certificate is ready: a serving certificate
   * from the cluster (kubernetes.io/kubelet-serving), served from then on and
   * rotated before it expires. Failures are logged; handshakes fail until it is issued.
   */
  async bootstrapServingCertificate(signal: AbortSignal): Promise<void> {
    const { options, logger } = this.deps;
    if (!this.server || !options.serverTLSBootstrap) return;
    const cluster = await loadClusterMode();
    const names = { dnsNames: [options.nodeName], ipAddresses: this.nodeAddresses() };
    try {
      const stored = await cluster.ensureServingCertificate({ kubeconfigPath: options.kubeconfig, certDir: options.certDir, nodeName: options.nodeName, logger, signal, ...names });
      this.server.setServingPair(stored);
      const rotation = new cluster.ClientCertificateRotation({ kind: 'serving', certDir: options.certDir, kubeconfigPath: options.kubeconfig, nodeName: options.nodeName, logger, ...names });
      rotation.on('rotated', (rotated) => this.server?.setServingPair(rotated));
      await rotation.start();
      this.servingRotation = rotation;
    } catch (err) {
      if (!signal.aborted) logger.error({ code: (err as ShardletError).code, err: (err as Error).message }, 'serverTLSBootstrap: no serving certificate; the kubelet API refuses TLS handshakes until one is issued');
    }
  }

  async stop(): Promise<void> {
    this.servingRotation?.stop();
    this.clientCa?.stop();
    await this.server?.close();
    await this.healthz?.close();
  }

  private nodeAddresses(): string[] {
    const { options } = this.deps;
    return options.nodeIPs.length > 0 ? options.nodeIPs : [detectHostIP()];
  }

  private async authenticator(): Promise<RequestAuthenticator> {
    const { options } = this.deps;
    const settings = options.kubeletServer;
    let tokenReviewer;
    if (settings.webhookAuthentication) {
      if (!options.kubeconfig) {
        throw new ShardletError(ErrorCodes.CONFIG_INVALID, 'authentication.webhook.enabled (--authentication-token-webhook): no client provided, cannot use webhook authentication; set --kubeconfig or turn the webhook off', { field: 'authentication.webhook.enabled' });
      }
      tokenReviewer = (await loadClusterMode()).tokenReviewer(options.kubeconfig);
    }
    return new RequestAuthenticator({
      clientCa: this.clientCa,
      tokenReviewer,
      tokenCacheTtlMs: settings.webhookAuthenticationCacheTtlMs,
      anonymousEnabled: settings.anonymousAuth,
    });
  }

  private async authorizer(): Promise<RequestAuthorizer> {
    const { options } = this.deps;
    const settings = options.kubeletServer;
    const mode = settings.authorizationMode as AuthorizationMode;
    let accessReviewer;
    if (mode === 'Webhook') {
      if (!options.kubeconfig) {
        throw new ShardletError(ErrorCodes.CONFIG_INVALID, 'authorization.mode (--authorization-mode) Webhook: no client provided, cannot use webhook authorization; set --kubeconfig or use AlwaysAllow', { field: 'authorization.mode' });
      }
      accessReviewer = (await loadClusterMode()).accessReviewer(options.kubeconfig);
    }
    return new RequestAuthorizer({
      mode,
      accessReviewer,
      cacheAuthorizedTtlMs: settings.webhookAuthorizedCacheTtlMs,
      cacheUnauthorizedTtlMs: settings.webhookUnauthorizedCacheTtlMs,
    });
  }
}
