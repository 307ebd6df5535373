// Bootstrap tokens, as kube-apiserver's bootstrap token authenticator reads them:
// a bearer token `<id>.<secret>` is looked up as the Secret `bootstrap-token-<id>`
// of type bootstrap.kubernetes.io/token in kube-system; it is accepted while that
// Secret is not being deleted, is meant for authentication, holds the same secret
// and has not expired. The user is system:bootstrap:<id>, in system:bootstrappers
// and the Secret's auth-extra-groups.
import { timingSafeEqual } from 'node:crypto';
import type { Store } from './store.js';
import type { ClientIdentity } from './tls.js';

export const BOOTSTRAP_TOKEN_SECRET_TYPE = 'bootstrap.kubernetes.io/token';
export const BOOTSTRAP_TOKEN_NAMESPACE = 'kube-system';
export const BOOTSTRAP_TOKEN_PATTERN = /^([a-z0-9]{6})\.([a-z0-9]{16})$/;
export const BOOTSTRAPPERS_GROUP = 'system:bootstrappers';

const SECRETS = { key: 'secrets', group: '', plural: 'secrets' };

function decoded(data: Record<string, string> | undefined, key: string): string | undefined {
  const value = data?.[key];
  return value === undefined ? undefined : Buffer.from(value, 'base64').toString();
}

function sameSecret(given: string, stored: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(stored);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The identity of a bootstrap token, or undefined when it is not a valid one. */
export function authenticateBootstrapToken(store: Store, token: string, now = Date.now()): ClientIdentity | undefined {
  const match = BOOTSTRAP_TOKEN_PATTERN.exec(token);
  if (!match) return undefined;
  const [, id, secret] = match;
  const stored = store.get(SECRETS, BOOTSTRAP_TOKEN_NAMESPACE, `bootstrap-token-${id}`);
  if (!stored || stored.type !== BOOTSTRAP_TOKEN_SECRET_TYPE || stored.metadata.deletionTimestamp) return undefined;
  const data = stored.data as Record<string, string> | undefined;
  const storedSecret = decoded(data, 'token-secret');
  if (decoded(data, 'token-id') !== id || storedSecret === undefined || !sameSecret(secret, storedSecret)) return undefined;
  if (decoded(data, 'usage-bootstrap-authentication') !== 'true') return undefined;
  const expiration = decoded(data, 'expiration');
  if (expiration && Date.parse(expiration) <= now) return undefined;
  const extraGroups = (decoded(data, 'auth-extra-groups') ?? '').split(',').map((g) => g.trim()).filter((g) => g.length > 0);
  return { user: `system:bootstrap:${id}`, groups: [BOOTSTRAPPERS_GROUP, ...extraGroups, 'system:authenticated'] };
}

/** The Secret kubeadm's `token create` writes for a token. */
export function bootstrapTokenSecret(token: string, options: { expiration?: Date; extraGroups?: string[] } = {}): object {
  const match = BOOTSTRAP_TOKEN_PATTERN.exec(token);
  if (!match) throw new Error(`bootstrap token ${JSON.stringify(token)} does not match [a-z0-9]{6}.[a-z0-9]{16}`);
  const stringData: Record<string, string> = {
    'token-id': match[1],
    'token-secret': match[2],
    'usage-bootstrap-authentication': 'true',
    'usage-bootstrap-signing': 'true',
  };
  if (options.expiration) stringData.expiration = options.expiration.toISOString().replace(/\.\d+Z$/, 'Z');
  if (options.extraGroups?.length) stringData['auth-extra-groups'] = options.extraGroups.join(',');
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: `bootstrap-token-${match[1]}`, namespace: BOOTSTRAP_TOKEN_NAMESPACE },
    type: BOOTSTRAP_TOKEN_SECRET_TYPE,
    stringData,
  };
}
