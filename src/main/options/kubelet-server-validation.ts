// Value checks for the kubelet API server's settings (:10250), run with the other
// config checks so a bad value is named by the file field or flag it came from:
// the authorization mode (upstream's BuildAuthz: "unknown authorization mode"),
// tlsMinVersion and tlsCipherSuites (names Go's crypto/tls knows).
import { AUTHORIZATION_MODES } from '../server/authorizer.js';
import { nodeTlsSettings, TlsSettingError } from '../server/tls-settings.js';
import { isPlainObject } from './kubelet-config-fields.js';
import type { ConfigProblem } from './kubelet-config-validation.js';

export function findServerConfigProblem(fields: Readonly<Record<string, unknown>>): ConfigProblem | undefined {
  const authorization = isPlainObject(fields.authorization) ? fields.authorization : {};
  const mode = authorization.mode as string | undefined;
  if (mode !== undefined && mode !== '' && !(AUTHORIZATION_MODES as readonly string[]).includes(mode)) {
    return { field: 'authorization.mode', reason: `unknown authorization mode ${JSON.stringify(mode)}; must be one of: ${AUTHORIZATION_MODES.join(', ')}` };
  }
  try {
    nodeTlsSettings((fields.tlsMinVersion as string | undefined) ?? '', (fields.tlsCipherSuites as string[] | undefined) ?? []);
  } catch (err) {
    if (err instanceof TlsSettingError) return { field: err.field, reason: err.message };
    throw err;
  }
  return undefined;
}
