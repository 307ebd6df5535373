// Whether this host can enforce AppArmor, read as runc's apparmor.IsEnabled does.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { appArmorHostProblem } from '../../../src/main/admission/apparmor-host.js';

const HOST_OFF = 'AppArmor is not enabled on the host';

test('the host enforces AppArmor only with the securityfs directory and the module enabled', () => {
  const root = mkdtempSync(join(tmpdir(), 'shardlet-apparmor-'));
  try {
    assert.equal(appArmorHostProblem(root), HOST_OFF);
    mkdirSync(join(root, 'sys/kernel/security/apparmor'), { recursive: true });
    mkdirSync(join(root, 'sys/module/apparmor/parameters'), { recursive: true });
    writeFileSync(join(root, 'sys/module/apparmor/parameters/enabled'), 'N\n');
    assert.equal(appArmorHostProblem(root), HOST_OFF);
    writeFileSync(join(root, 'sys/module/apparmor/parameters/enabled'), 'Y\n');
    assert.equal(appArmorHostProblem(root), undefined);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
