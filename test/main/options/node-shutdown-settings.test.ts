// The graceful node shutdown settings: the file's shutdownGracePeriod,
// shutdownGracePeriodCriticalPods and shutdownGracePeriodByPodPriority, the two
// feature gates (on by default, as upstream), shardlet's --logind-conf-dir, and
// upstream's checks naming the field.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseFlags } from '../../../src/main/options/flags.js';
import { mergeFlags, parseKubeletConfig } from '../../../src/main/options/kubelet-config.js';

const env = { hostname: () => 'node-1' };
const header = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n';
const fromFile = (body: string, flags: string[] = []) => mergeFlags(parseKubeletConfig(`${header}${body}`, 'k.yaml'), parseFlags(flags), env);

test('off by default; the gates are on and the drop-in goes to upstream\'s logind.conf.d', () => {
  assert.deepEqual(fromFile('').nodeShutdown, {
    enabled: true,
    byPodPriorityEnabled: true,
    gracePeriodMs: 0,
    criticalPodsGracePeriodMs: 0,
    byPodPriority: [],
    logindConfDir: '/etc/systemd/logind.conf.d',
  });
});

test('the file sets the periods and the gates; they are acted on, not named as ignored', () => {
  const options = fromFile('shutdownGracePeriod: 30s\nshutdownGracePeriodCriticalPods: 10s\nfeatureGates: {GracefulNodeShutdown: false}\n', ['--logind-conf-dir=/tmp/logind.conf.d']);
  assert.equal(options.nodeShutdown.gracePeriodMs, 30_000);
  assert.equal(options.nodeShutdown.criticalPodsGracePeriodMs, 10_000);
  assert.equal(options.nodeShutdown.enabled, false);
  assert.equal(options.nodeShutdown.logindConfDir, '/tmp/logind.conf.d');
  assert.deepEqual(fromFile('shutdownGracePeriod: 30s\nshutdownGracePeriodCriticalPods: 10s\n').startupNotices.notActedOn, []);
  const byPriority = fromFile('shutdownGracePeriodByPodPriority:\n- {priority: 100000, shutdownGracePeriodSeconds: 20}\n- {priority: 0, shutdownGracePeriodSeconds: 60}\n');
  assert.deepEqual(byPriority.nodeShutdown.byPodPriority, [{ priority: 100_000, shutdownGracePeriodSeconds: 20 }, { priority: 0, shutdownGracePeriodSeconds: 60 }]);
  assert.deepEqual(byPriority.startupNotices.notActedOn, []);
});

test("upstream's rules for shutdownGracePeriodByPodPriority: not with the plain periods, not without its gate", () => {
  const byPriority = 'shutdownGracePeriodByPodPriority:\n- {priority: 0, shutdownGracePeriodSeconds: 60}\n';
  assert.throws(
    () => fromFile(`${byPriority}shutdownGracePeriod: 30s\n`),
    /k\.yaml: field "shutdownGracePeriodByPodPriority": Cannot specify both shutdownGracePeriodByPodPriority and shutdownGracePeriod at the same time/,
  );
  assert.throws(
    () => fromFile(`${byPriority}featureGates: {GracefulNodeShutdownBasedOnPodPriority: false}\n`),
    /field "shutdownGracePeriodByPodPriority": Specifying shutdownGracePeriodByPodPriority requires feature gate GracefulNodeShutdownBasedOnPodPriority/,
  );
});
