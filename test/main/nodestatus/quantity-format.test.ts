import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatBinary, formatDecimal, formatDecimalMillis, formatResource } from '../../../src/main/nodestatus/quantity-format.js';

test('quantities are written in the API server\'s canonical form', () => {
  const cases: Array<[string, () => string, string]> = [
    ['2 cores', () => formatDecimalMillis(2000), '2'],
    ['1.5 cores', () => formatDecimalMillis(1500), '1500m'],
    ['zero cpu', () => formatDecimalMillis(0), '0'],
    ['1000 cores', () => formatDecimalMillis(1_000_000), '1k'],
    ['negative clamps to zero', () => formatDecimalMillis(-5), '0'],
    ['110 pods', () => formatDecimal(110), '110'],
    ['1000 pods', () => formatDecimal(1000), '1k'],
    ['MemTotal in Ki', () => formatBinary(16331712 * 1024), '16331712Ki'],
    ['whole Gi', () => formatBinary(16 * 1024 ** 3), '16Gi'],
    ['2Mi page', () => formatBinary(2 * 1024 ** 2), '2Mi'],
    ['not a multiple of 1024', () => formatBinary(1_500_000), '1500000'],
    ['under 1024 is decimal', () => formatBinary(1000), '1k'],
    ['zero bytes', () => formatBinary(0), '0'],
    ['resource: cpu', () => formatResource('cpu', 250), '250m'],
    ['resource: ephemeral-storage', () => formatResource('ephemeral-storage', 4096 * 66053021), '264212084Ki'],
    ['resource: hugepages', () => formatResource('hugepages-1Gi', 0), '0'],
  ];
  for (const [name, run, want] of cases) assert.equal(run(), want, name);
});
