// Property: whatever the KubeletConfiguration file and the command line hold,
// loading and resolving them either gives options or throws the documented coded
// error (ShardletError SHARDLET_CONFIG_INVALID or SHARDLET_FLAG_INVALID), never
// anything else.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { stringify } from 'yaml';
import { ErrorCodes, ShardletError } from '../../../src/shared/errors.js';
import { helpText, parseFlags } from '../../../src/main/options/flags.js';
import { KUBELET_CONFIGURATION_FIELDS } from '../../../src/main/options/kubelet-config-fields.js';
import { mergeFlags, parseKubeletConfig } from '../../../src/main/options/kubelet-config.js';

const NUM_RUNS = 150;
const CODES: string[] = [ErrorCodes.CONFIG_INVALID, ErrorCodes.FLAG_INVALID];
const env = { hostname: () => 'node-1' };
const HEADER = { apiVersion: 'kubelet.config.k8s.io/v1beta1', kind: 'KubeletConfiguration' };

function loadChecked(run: () => unknown): void {
  try {
    run();
  } catch (err) {
    assert.ok(err instanceof ShardletError, `only ShardletError may leave the loader, got ${String(err)}`);
    assert.ok(CODES.includes(err.code), err.code);
    assert.ok(err.message.length < 2_000, `message of ${err.message.length} chars`);
  }
}

const anything = fc.anything({ maxDepth: 3, withBigInt: true, withDate: true, withNullPrototype: true });
const FIELD_NAMES = Object.keys(KUBELET_CONFIGURATION_FIELDS).filter((name) => name !== 'apiVersion' && name !== 'kind');
/** Plausible values for each kind of field, mixed with anything at all. */
const fieldValue = fc.oneof(
  anything,
  fc.constantFrom('0s', '-1s', '20s', '1h', '500ms', 'abc', '', '1.5.5s'),
  fc.integer({ min: -70_000, max: 70_000 }),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.dictionary(fc.string(), fc.oneof(fc.string(), fc.boolean(), fc.integer())),
);
const configLike = fc.dictionary(fc.oneof(fc.constantFrom(...FIELD_NAMES), fc.string()), fieldValue, { maxKeys: 8 });

test('arbitrary config text never throws anything but the coded error', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'binary', maxLength: 400 }), (text) => {
      loadChecked(() => mergeFlags(parseKubeletConfig(text, 'kubelet.yaml'), {}, env));
    }),
    { numRuns: NUM_RUNS },
  );
});

test('KubeletConfiguration objects with arbitrary fields and values never throw anything but the coded error', () => {
  fc.assert(
    fc.property(configLike, (fields) => {
      const document = { ...HEADER, ...fields };
      for (const text of [safe(() => JSON.stringify(document)), safe(() => stringify(document))]) {
        if (text !== undefined) loadChecked(() => mergeFlags(parseKubeletConfig(text, 'kubelet.yaml'), {}, env));
      }
    }),
    { numRuns: NUM_RUNS },
  );
});

const FLAG_NAMES = [...helpText().matchAll(/--([a-z-]+)/g)].map((match) => match[1]!);
const flagValue = fc.oneof(fc.string({ maxLength: 20 }), fc.constantFrom('0', '0s', '-1', '-1s', '1000', '99999999999999999999', 'true', 'x=y:NoSchedule', '10.0.0.1,::1', 'a:b'));
const argv = fc.array(
  fc.oneof(
    fc.tuple(fc.constantFrom(...FLAG_NAMES), flagValue).map(([name, value]) => [`--${name}=${value}`]),
    fc.tuple(fc.constantFrom(...FLAG_NAMES), flagValue).map(([name, value]) => [`--${name}`, value]),
    fc.string({ maxLength: 10 }).map((junk) => [junk]),
  ),
  { maxLength: 6 },
).map((groups) => groups.flat());

test('arbitrary command lines, alone and over a config file, never throw anything but the coded error', () => {
  fc.assert(
    fc.property(argv, configLike, (args, fields) => {
      loadChecked(() => mergeFlags(undefined, parseFlags(args), env));
      const text = safe(() => JSON.stringify({ ...HEADER, ...fields }));
      if (text !== undefined) loadChecked(() => mergeFlags(parseKubeletConfig(text, 'kubelet.yaml'), parseFlags(args), env));
    }),
    { numRuns: NUM_RUNS },
  );
});

function safe(encode: () => string): string | undefined {
  try {
    return encode();
  } catch {
    return undefined;
  }
}
