// The client certificate of a request as upstream's x509 authenticator judges it,
// on every request: no certificate is no credential; one that does not verify
// against the client CA bundle in use now, or is outside its validity now, is a
// failed credential (401, never anonymous); a verified one with an empty CN names
// nobody (CommonNameUserConversion); otherwise CN is the user and O the groups.
//
// OpenSSL verifies the chain at the handshake against the bundle of that moment.
// The bundle can change afterwards (the file is reloaded) while a keep-alive
// connection stays open, so each request also checks that the verified chain still
// reaches a certificate of the bundle in use now, and that every certificate of the
// chain is valid now, as Go's per-request x509.Verify does.
import type { DetailedPeerCertificate, PeerCertificate, TLSSocket } from 'node:tls';
import type { ClientCaBundle } from './client-ca.js';
import type { RequestUser } from './kubelet-routes.js';

/**
 * What one authenticator made of a request: a user; nothing of its kind presented
 * (`none`); or a credential that failed (`failed`, with why). `webhookError` marks a
 * failure of the API server rather than of the credential.
 */
export type CredentialOutcome = { user: RequestUser } | { none: true } | { failed: string; webhookError?: boolean };

/** What a verified peer chain gives, read once per connection. */
interface VerifiedChain {
  name: string;
  groups: string[];
  /** SHA-256 fingerprints of the leaf, its intermediates and the root OpenSSL anchored it to. */
  fingerprints: string[];
  /** The chain's common validity window. */
  notBeforeMs: number;
  notAfterMs: number;
  /** For messages: the leaf's serial number. */
  serial: string;
}

const chainBySocket = new WeakMap<TLSSocket, VerifiedChain>();

export function peerCertificateOutcome(socket: TLSSocket, bundle: ClientCaBundle, nowMs: number): CredentialOutcome {
  if (typeof socket.getPeerCertificate !== 'function') return { none: true };
  const leaf = socket.getPeerCertificate(false) as PeerCertificate | null;
  if (!leaf || Object.keys(leaf).length === 0) return { none: true };
  if (!socket.authorized) {
    return { failed: `verifying certificate SN=${leaf.serialNumber ?? ''} failed: ${String(socket.authorizationError ?? 'unknown authority')}` };
  }
  let chain = chainBySocket.get(socket);
  if (!chain) {
    chain = verifiedChain(socket.getPeerCertificate(true));
    chainBySocket.set(socket, chain);
  }
  if (!chain.fingerprints.some((fingerprint) => bundle.fingerprints.has(fingerprint))) {
    return { failed: `verifying certificate SN=${chain.serial} failed: x509: certificate signed by unknown authority (the client CA bundle changed)` };
  }
  if (!(nowMs >= chain.notBeforeMs && nowMs <= chain.notAfterMs)) {
    return { failed: `verifying certificate SN=${chain.serial} failed: x509: certificate has expired or is not yet valid` };
  }
  if (!chain.name) return { none: true };
  return { user: { name: chain.name, groups: chain.groups } };
}

function verifiedChain(leaf: DetailedPeerCertificate): VerifiedChain {
  const subject = leaf.subject as unknown as Record<string, string | string[] | undefined> | undefined;
  const fingerprints: string[] = [];
  let notBeforeMs = -Infinity;
  let notAfterMs = Infinity;
  // The root's issuerCertificate is the root itself.
  for (let cert: DetailedPeerCertificate | undefined = leaf; cert && !fingerprints.includes(cert.fingerprint256); cert = cert.issuerCertificate) {
    fingerprints.push(cert.fingerprint256);
    // A date that does not parse fails the check below (NaN compares false), closed rather than open.
    notBeforeMs = Math.max(notBeforeMs, Date.parse(cert.valid_from));
    notAfterMs = Math.min(notAfterMs, Date.parse(cert.valid_to));
  }
  return {
    name: [subject?.CN ?? []].flat()[0] ?? '',
    groups: [subject?.O ?? []].flat(),
    fingerprints,
    notBeforeMs,
    notAfterMs,
    serial: leaf.serialNumber,
  };
}
