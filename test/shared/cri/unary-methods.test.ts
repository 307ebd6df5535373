// The static method table against proto-loader's definitions of the same services.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CRI_METHODS } from '../../../src/shared/cri/call-counts.js';
import { loadCriServices } from '../../../src/shared/cri/load-proto.js';
import { genericMethod, STATIC_METHODS } from '../../../src/shared/cri/unary-methods.js';

test('every static method posts to the path the proto gives it, under a counted name', () => {
  const services = loadCriServices();
  for (const [key, method] of Object.entries(STATIC_METHODS)) {
    const definitions = (method.service === 'RuntimeService' ? services.runtime : services.image) as unknown as Record<string, { path: string }>;
    assert.equal(method.path, definitions[method.name]?.path, key);
    assert.equal(method.label, `${method.service}/${method.name}`);
    assert.ok((CRI_METHODS as readonly string[]).includes(method.name), key);
  }
});

test('a cold method gets proto-loader’s definition once per thread', () => {
  const status = genericMethod('RuntimeService', 'Status');
  assert.equal(status.path, '/runtime.v1.RuntimeService/Status');
  assert.equal(genericMethod('RuntimeService', 'Status'), status);
  assert.equal(genericMethod('ImageService', 'ImageFsInfo').path, '/runtime.v1.ImageService/ImageFsInfo');
});
