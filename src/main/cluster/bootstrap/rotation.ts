// Certificate rotation, as upstream's certificate manager: renew at a jittered
// deadline 70–90 % into the certificate's lifetime; retry with backoff; swap
// `<prefix>-current.pem` and tell the users ('rotated'). The client certificate
// (rotateCertificates) asks with its own credentials while it is valid (upstream's
// selfnodeclient path) and with the bootstrap kubeconfig once it has expired; the
// serving certificate (serverTLSBootstrap) always asks with the client kubeconfig.
import { EventEmitter } from 'node:events';
import path from 'node:path';
import type { Logger } from 'pino';
import { Backoff } from '../../../shared/backoff.js';
import { ErrorCodes, ShardletError } from '../../../shared/errors.js';
import { pendingOrNewKey } from './bootstrap.js';
import { CertificateStore, isCurrentlyValid, KUBELET_CLIENT_PREFIX, KUBELET_SERVER_PREFIX, type StoredCertificate } from './cert-store.js';
import { type CertificateRequestSpec, CLIENT_USAGES, KUBELET_CLIENT_SIGNER, KUBELET_SERVING_SIGNER, requestCertificate, SERVING_USAGES } from './csr-request.js';
import { loadKubeconfig } from './kubeconfig-files.js';

/** Upstream's nextRotationDeadline: 70 % of the lifetime plus up to another 20 %, at random. */
export const ROTATION_DEADLINE_MIN_FRACTION = 0.7;
export const ROTATION_DEADLINE_JITTER_FRACTION = 0.2;
/** Retries of a failed renewal: 2 s doubling (upstream's certificate manager backoff), capped. */
const RENEWAL_INITIAL_BACKOFF_MS = 2_000;
const RENEWAL_MAX_BACKOFF_MS = 128_000;
/** setTimeout's limit; a later deadline is reached in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** When a certificate valid from `notBefore` to `notAfter` should be renewed. */
export function rotationDeadline(validity: { notBefore: Date; notAfter: Date }, random: () => number = Math.random): Date {
  const lifetimeMs = validity.notAfter.getTime() - validity.notBefore.getTime();
  const fraction = ROTATION_DEADLINE_MIN_FRACTION + ROTATION_DEADLINE_JITTER_FRACTION * random();
  return new Date(validity.notBefore.getTime() + lifetimeMs * fraction);
}

export interface ClientCertificateRotationOptions {
  certDir: string;
  /** The kubeconfig bootstrap wrote (it names kubelet-client-current.pem). */
  kubeconfigPath: string;
  bootstrapKubeconfigPath?: string;
  nodeName: string;
  logger: Logger;
  random?: () => number;
  /** 'client' (default) or 'serving' (kubelet-server-current.pem, for :10250). */
  kind?: 'client' | 'serving';
  /** For the serving certificate: the node's names and addresses. */
  dnsNames?: string[];
  ipAddresses?: string[];
}

export interface RotationEvents {
  /** A new certificate is current: clients should reconnect to use it (upstream closes their connections). */
  rotated: [StoredCertificate];
}

export class ClientCertificateRotation extends EventEmitter<RotationEvents> {
  private readonly store: CertificateStore;
  private readonly spec: CertificateRequestSpec;
  private readonly backoff = new Backoff({ initialMs: RENEWAL_INITIAL_BACKOFF_MS, maxMs: RENEWAL_MAX_BACKOFF_MS, jitter: 0.1 });
  private readonly abort = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private currentCertificate: StoredCertificate | undefined;

  constructor(private readonly options: ClientCertificateRotationOptions) {
    super();
    const serving = options.kind === 'serving';
    this.store = new CertificateStore(options.certDir, serving ? KUBELET_SERVER_PREFIX : KUBELET_CLIENT_PREFIX);
    this.spec = serving
      ? { nodeName: options.nodeName, signerName: KUBELET_SERVING_SIGNER, usages: SERVING_USAGES, dnsNames: options.dnsNames, ipAddresses: options.ipAddresses }
      : { nodeName: options.nodeName, signerName: KUBELET_CLIENT_SIGNER, usages: CLIENT_USAGES };
  }

  /** The certificate in use now (the getter the API clients can read). */
  current(): StoredCertificate | undefined {
    return this.currentCertificate;
  }

  /** Reads the current certificate and schedules its renewal. */
  async start(): Promise<void> {
    this.currentCertificate = await this.store.current();
    if (!this.currentCertificate) {
      throw new ShardletError(ErrorCodes.TLS_BOOTSTRAP_FAILED, `${this.store.currentPath}: no client certificate to rotate`, { path: this.store.currentPath });
    }
    this.schedule(rotationDeadline(this.currentCertificate, this.options.random));
  }

  stop(): void {
    clearTimeout(this.timer);
    this.abort.abort(new ShardletError(ErrorCodes.TLS_BOOTSTRAP_FAILED, 'certificate rotation stopped'));
  }

  private schedule(deadline: Date): void {
    if (this.abort.signal.aborted) return;
    const waitMs = Math.max(0, deadline.getTime() - Date.now());
    this.options.logger.info({ signerName: this.spec.signerName, notAfter: this.currentCertificate?.notAfter.toISOString(), rotationDeadline: deadline.toISOString(), waitMs }, 'certificate rotation scheduled');
    this.timer = setTimeout(() => {
      if (Date.now() < deadline.getTime()) this.schedule(deadline);
      else void this.rotate();
    }, Math.min(waitMs, MAX_TIMER_MS));
    this.timer.unref();
  }

  /** One renewal; on failure the next try follows the backoff. */
  private async rotate(): Promise<void> {
    const { certDir, kubeconfigPath, bootstrapKubeconfigPath, logger } = this.options;
    try {
      const serving = this.options.kind === 'serving';
      const stillValid = serving || (this.currentCertificate !== undefined && isCurrentlyValid(this.currentCertificate));
      if (!stillValid && !bootstrapKubeconfigPath) {
        throw new ShardletError(ErrorCodes.TLS_BOOTSTRAP_FAILED, 'the client certificate has expired and there is no bootstrap kubeconfig to renew it with');
      }
      const config = stillValid ? loadKubeconfig(kubeconfigPath, '--kubeconfig') : loadKubeconfig(bootstrapKubeconfigPath ?? '', '--bootstrap-kubeconfig');
      logger.info({ signerName: this.spec.signerName, credentials: stillValid ? 'kubeconfig' : 'bootstrap kubeconfig' }, 'rotating the certificate');
      const keyFile = path.join(certDir, `${this.store.prefix}.key.tmp`);
      const keyPem = await pendingOrNewKey(keyFile);
      const certPem = await requestCertificate({ config, keyFile, spec: this.spec, logger, signal: this.abort.signal });
      const stored = await this.store.updateFromPendingKey(certPem, keyPem, keyFile);
      this.currentCertificate = stored;
      this.backoff.reset();
      logger.info({ certFile: stored.file, notAfter: stored.notAfter.toISOString() }, 'certificate rotated');
      this.emit('rotated', stored);
      this.schedule(rotationDeadline(stored, this.options.random));
    } catch (err) {
      if (this.abort.signal.aborted) return;
      const retryInMs = this.backoff.next();
      logger.error({ err: String(err), retryInMs, signerName: this.spec.signerName }, 'certificate rotation failed');
      this.schedule(new Date(Date.now() + retryInMs));
    }
  }
}
