import assert from 'node:assert/strict';
import { test } from 'node:test';
import { omitEmptyJson, sortedKeysJson } from '../../src/shared/canonical-json.js';

const value = { b: [2, 1], a: { d: null, c: [], e: {} }, z: undefined };

test('sortedKeysJson sorts keys at every level and keeps empty values', () => {
  assert.equal(sortedKeysJson(value), '{"a":{"c":[],"d":null,"e":{}},"b":[2,1]}');
  assert.equal(sortedKeysJson({ y: 1, x: 2 }), sortedKeysJson({ x: 2, y: 1 }));
});

test('omitEmptyJson sorts keys and drops null, [] and {} at every level, keeping array order', () => {
  assert.equal(omitEmptyJson(value), '{"b":[2,1]}');
  assert.equal(omitEmptyJson({ a: { c: [] } }), undefined);
  assert.equal(omitEmptyJson([null, 1]), '[null,1]');
});
