// The container GC settings: upstream's defaults, its three deprecated flags and
// shardlet's --container-gc-period, upstream's check on the minimum age, and that
// none of them is named as not acted on any more.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseFlags } from '../../../src/main/options/flags.js';
import { mergeFlags } from '../../../src/main/options/kubelet-config.js';

const env = { hostname: () => 'node-1' };
const fromFlags = (argv: string[]) => mergeFlags(undefined, parseFlags(argv), env);

test("defaults are upstream's: MinAge 0, one dead instance per container, no node-wide limit, every minute", () => {
  assert.deepEqual(fromFlags([]).containerGC, { minAgeMs: 0, maxPerPodContainer: 1, maxContainers: -1, periodMs: 60_000 });
});

test('the flags set the policy, and are acted on', () => {
  const options = fromFlags(['--minimum-container-ttl-duration=6m0s', '--maximum-dead-containers-per-container=5', '--maximum-dead-containers=2', '--container-gc-period=2s']);
  assert.deepEqual(options.containerGC, { minAgeMs: 360_000, maxPerPodContainer: 5, maxContainers: 2, periodMs: 2_000 });
  assert.deepEqual(options.startupNotices.notActedOn, []);
  assert.deepEqual(options.startupNotices.deprecations, [
    'Flag --minimum-container-ttl-duration has been deprecated, Use --eviction-hard or --eviction-soft instead. Will be removed in a future version.',
    'Flag --maximum-dead-containers-per-container has been deprecated, Use --eviction-hard or --eviction-soft instead. Will be removed in a future version.',
    'Flag --maximum-dead-containers has been deprecated, Use --eviction-hard or --eviction-soft instead. Will be removed in a future version.',
  ]);
});

test('a negative minimum age is refused as upstream refuses it; a negative period too', () => {
  assert.throws(() => fromFlags(['--minimum-container-ttl-duration=-1m']), /invalid value for flag --minimum-container-ttl-duration: invalid minimum garbage collection age: -1m0s/);
  assert.throws(() => fromFlags(['--container-gc-period=-1s']), /invalid value for flag --container-gc-period/);
  assert.throws(() => fromFlags(['--maximum-dead-containers=lots']), /--maximum-dead-containers/);
});
