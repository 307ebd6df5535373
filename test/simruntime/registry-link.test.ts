// The registry link: bandwidth shared by the pulls in flight, each pull capped at
// its own rate. Wall-clock checks are lower bounds only (a loaded machine makes a
// transfer slower, never faster).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RegistryLink } from '../../src/simruntime/registry-link.js';

const MB = 1_000_000;

describe('registry link', () => {
  it('gives each pull its share of the link, never more than the per-pull cap', () => {
    const link = new RegistryLink(1000 * MB, 200 * MB);
    assert.equal(link.rateWith(1), 200 * MB, 'a lone pull runs at the cap, not the link');
    assert.equal(link.rateWith(5), 200 * MB, 'five pulls fill the link exactly');
    assert.equal(link.rateWith(10), 100 * MB, 'ten share the link');
  });

  it('treats 0 as no limit for either rate', () => {
    assert.equal(new RegistryLink(0, 50 * MB).rateWith(4), 50 * MB);
    assert.equal(new RegistryLink(100 * MB, 0).rateWith(4), 25 * MB);
    assert.equal(new RegistryLink(0, 0).rateWith(1), Infinity);
  });

  it('finishes transfers at once when nothing limits them', async () => {
    const link = new RegistryLink(Infinity, Infinity);
    await link.transfer(500 * MB);
    assert.equal(link.activeTransfers, 0);
  });

  it('never moves a lone pull faster than the cap, however wide the link', async () => {
    const link = new RegistryLink(10_000 * MB, 10 * MB);
    const startedMs = performance.now();
    await link.transfer(1 * MB);
    const elapsedMs = performance.now() - startedMs;
    assert.ok(elapsedMs >= 95, `1 MB at 10 MB/s took ${elapsedMs.toFixed(1)} ms, at least 100 expected`);
    link.close();
  });

  it('slows parallel pulls down to their share when the link is the narrower limit', async () => {
    const link = new RegistryLink(10 * MB, 1000 * MB);
    const startedMs = performance.now();
    const both = Promise.all([link.transfer(0.5 * MB), link.transfer(0.5 * MB)]);
    assert.equal(link.activeTransfers, 2);
    await both;
    const elapsedMs = performance.now() - startedMs;
    assert.ok(elapsedMs >= 95, `2 × 0.5 MB over 10 MB/s took ${elapsedMs.toFixed(1)} ms, at least 100 expected`);
    link.close();
  });
});
