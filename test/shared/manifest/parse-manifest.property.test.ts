// Property: whatever text or bytes a manifest holds, the parser and the static
// pod defaults either give a pod or throw the documented coded error
// (ShardletError SHARDLET_MANIFEST_INVALID naming the origin), never anything
// else, and never a message carrying a whole hostile input.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { stringify } from 'yaml';
import { ErrorCodes, ShardletError } from '../../../src/shared/errors.js';
import { MAX_NESTING_DEPTH } from '../../../src/shared/manifest/bounded-decode.js';
import { parseManifest } from '../../../src/shared/manifest/parse-manifest.js';
import { applyStaticPodDefaults } from '../../../src/shared/manifest/static-pod.js';
import { FILE_SOURCE, HTTP_SOURCE } from '../../../src/shared/types.js';

const NUM_RUNS = 150;
const ORIGIN = '/etc/kubernetes/manifests/x.yaml';
/** A reason quotes at most 64 characters of input per value; a whole message stays well under this. */
const MAX_MESSAGE_CHARS = 20_000;

/** Runs the whole file-source decode; returns normally or throws only the coded error. */
function decodeChecked(input: string | Uint8Array): void {
  try {
    const manifest = parseManifest(input, ORIGIN);
    for (const pod of manifest.pods) {
      applyStaticPodDefaults(pod, { source: FILE_SOURCE, location: ORIGIN, nodeName: 'node-1' });
      applyStaticPodDefaults(pod, { source: HTTP_SOURCE, location: 'http://cfg/pods', nodeName: 'node-1' });
    }
  } catch (err) {
    assert.ok(err instanceof ShardletError, `only ShardletError may leave the parser, got ${String(err)}`);
    assert.equal(err.code, ErrorCodes.MANIFEST_INVALID);
    assert.ok(err.message.startsWith(ORIGIN), err.message);
    assert.ok(err.message.length < MAX_MESSAGE_CHARS, `message of ${err.message.length} chars`);
  }
}

const VALID_CONTAINER = { name: 'c', image: 'busybox:1.36' };

/** Pod-shaped objects whose every field may be replaced by anything at all. */
const anything = fc.anything({ maxDepth: 4, withNullPrototype: true, withBigInt: true, withDate: true, withMap: true, withSet: true, withTypedArray: true });
const podLike = fc.record(
  {
    apiVersion: fc.oneof(fc.constant('v1'), anything),
    kind: fc.oneof(fc.constant('Pod'), fc.constant('PodList'), anything),
    metadata: fc.oneof(
      fc.record({ name: fc.oneof(fc.constant('web'), fc.string(), anything), namespace: fc.oneof(fc.string(), anything), uid: anything, annotations: anything, labels: anything }, { requiredKeys: [] }),
      anything,
    ),
    spec: fc.oneof(
      fc.record(
        {
          containers: fc.oneof(fc.constant([VALID_CONTAINER]), fc.array(fc.oneof(fc.constant(VALID_CONTAINER), fc.dictionary(fc.constantFrom('name', 'image', 'env', 'ports', 'resources', 'livenessProbe', 'volumeMounts', 'command'), anything), anything))),
          initContainers: anything,
          volumes: fc.oneof(fc.array(fc.dictionary(fc.constantFrom('name', 'hostPath', 'secret', 'configMap', 'projected', 'downwardAPI', 'emptyDir'), anything)), anything),
          tolerations: anything,
          securityContext: anything,
          restartPolicy: anything,
          terminationGracePeriodSeconds: anything,
          hostNetwork: anything,
        },
        { requiredKeys: [] },
      ),
      anything,
    ),
    items: anything,
    status: anything,
  },
  { requiredKeys: [] },
);

test('arbitrary text never throws anything but the coded error', () => {
  fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 400 }), (text) => decodeChecked(text)), { numRuns: NUM_RUNS });
});

test('arbitrary bytes never throw anything but the coded error', () => {
  fc.assert(fc.property(fc.uint8Array({ maxLength: 400 }), (bytes) => decodeChecked(bytes)), { numRuns: NUM_RUNS });
});

test('pod-shaped JSON and YAML with any field replaced never throw anything but the coded error', () => {
  fc.assert(
    fc.property(podLike, (pod) => {
      let json: string | undefined;
      try {
        json = JSON.stringify(pod);
      } catch {
        json = undefined; // BigInt and the like: not JSON, the YAML form still goes through
      }
      if (json !== undefined) decodeChecked(json);
      let yamlText: string | undefined;
      try {
        yamlText = stringify(pod);
      } catch {
        yamlText = undefined;
      }
      if (yamlText !== undefined) decodeChecked(yamlText);
    }),
    { numRuns: NUM_RUNS },
  );
});

/** YAML made of the constructs that hurt: anchors, aliases, tags, flow and block nesting. */
const yamlToken = fc.constantFrom('a: ', '&x ', '*x', '&y [', '*y', ']', '[', '{', '}', ', ', '- ', '\n', '\n  ', '!!binary ', '!!str ', '!!map ', '.inf', '.nan', '? ', ': ', '---\n', 'kind: Pod\n', 'apiVersion: v1\n', '<<: *x\n', '"\\u0000"', "'q'", '|\n  text\n', 'null', '~', '0x1F', '1e999');
test('YAML built from anchors, aliases, tags and nesting never throws anything but the coded error', () => {
  fc.assert(fc.property(fc.array(yamlToken, { maxLength: 60 }), (tokens) => decodeChecked(tokens.join(''))), { numRuns: NUM_RUNS });
});

test('nesting at the limit is accepted and one level past it is refused, JSON and YAML alike', () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 3 * MAX_NESTING_DEPTH }), fc.boolean(), (extraDepth, asYaml) => {
      // The document, spec, containers, the container: 4 levels before x's value.
      const value = '['.repeat(extraDepth) + ']'.repeat(extraDepth);
      const text = asYaml
        ? `apiVersion: v1\nkind: Pod\nmetadata: {name: deep}\nspec:\n  containers:\n    - name: c\n      image: busybox\n      x: ${value}\n`
        : `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"deep"},"spec":{"containers":[{"name":"c","image":"busybox","x":${value}}]}}`;
      const accepted = 4 + extraDepth <= MAX_NESTING_DEPTH;
      if (accepted) assert.equal(parseManifest(text, ORIGIN).pods.length, 1);
      else assert.throws(() => parseManifest(text, ORIGIN), (err: unknown) => err instanceof ShardletError && err.code === ErrorCodes.MANIFEST_INVALID);
    }),
    { numRuns: 60 },
  );
});
