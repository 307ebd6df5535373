import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isValidQuantity, parseBytes, parseCpuMillis } from '../../src/shared/quantity.js';

const cpuCases: Array<[string | number, number]> = [
  ['100m', 100],
  ['0.5', 500],
  ['1', 1000],
  [1, 1000],
  [0.25, 250],
  ['2.5', 2500],
  ['0.1', 100],
  ['.5', 500],
  ['1e3', 1_000_000],
  ['1E-3', 1],
  ['1k', 1_000_000],
  ['250u', 1],
  ['1500n', 1],
  ['0', 0],
  ['0m', 0],
  ['+3', 3000],
];

for (const [input, expected] of cpuCases) {
  test(`parseCpuMillis(${JSON.stringify(input)}) = ${expected}`, () => {
    assert.equal(parseCpuMillis(input), expected);
  });
}

const byteCases: Array<[string | number, number]> = [
  ['128Mi', 128 * 1024 * 1024],
  ['1Gi', 1024 ** 3],
  ['1G', 1e9],
  ['1M', 1e6],
  ['1k', 1000],
  ['1Ki', 1024],
  ['1e3', 1000],
  ['1.5Gi', 1.5 * 1024 ** 3],
  ['0.5Ki', 512],
  ['100m', 1],
  ['1Ti', 1024 ** 4],
  ['12345', 12345],
  [65536, 65536],
  ['64E-1', 7],
];

for (const [input, expected] of byteCases) {
  test(`parseBytes(${JSON.stringify(input)}) = ${expected}`, () => {
    assert.equal(parseBytes(input), expected);
  });
}

test('quantity: invalid input is rejected with a coded error', () => {
  for (const bad of ['', 'abc', '1.2.3', '10 Mi', 'Mi', '1mi', '1KiB', '--1', '1e']) {
    assert.equal(isValidQuantity(bad), false, bad);
    assert.throws(() => parseBytes(bad), { code: 'SHARDLET_MANIFEST_INVALID' });
  }
});

test('quantity: negative values round away from zero', () => {
  assert.equal(parseCpuMillis('-100m'), -100);
  assert.equal(parseBytes('-0.5'), -1);
});
