// Whether this host can enforce AppArmor, read once at start-up as upstream's
// apparmor.NewValidator (validateHost over runc's apparmor.IsEnabled): the
// securityfs directory exists and the module says it is enabled.
import { existsSync, readFileSync } from 'node:fs';

const APPARMOR_SECURITYFS = '/sys/kernel/security/apparmor';
const APPARMOR_ENABLED_PARAMETER = '/sys/module/apparmor/parameters/enabled';

/** Why AppArmor cannot be enforced here, undefined when it can; `root` lets tests point at a fake /sys. */
export function appArmorHostProblem(root = ''): string | undefined {
  if (process.platform !== 'linux') return 'binary not compiled for linux';
  let enabled: boolean;
  try {
    enabled = existsSync(root + APPARMOR_SECURITYFS) && readFileSync(root + APPARMOR_ENABLED_PARAMETER, 'utf8').startsWith('Y');
  } catch {
    enabled = false;
  }
  return enabled ? undefined : 'AppArmor is not enabled on the host';
}
