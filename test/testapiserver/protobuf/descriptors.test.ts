// proto/k8s checked against the descriptors compiled into the kubectl binaries on
// this machine (kubectl-descriptors.ts): every message kubectl knows in the
// packages we load is there with the same fields, numbers, types and Go
// nullability; against the newest kubectl (1.33 here) nothing more either; and
// resource.k8s.io/v1, which no kubectl here carries, agrees with the 1.33
// resource/v1beta2 it was copied from wherever the two share a message.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { kubeSchema, type FieldSchema, type MessageSchema } from '../../../src/testapiserver/protobuf/schema.js';
import { descriptorsIn, kubectlBinaries, type DescribedField, type DescribedFile, type DescribedMessage } from './kubectl-descriptors.js';

/** The files proto/k8s holds, as the descriptors name them (resource/v1 is checked separately). */
const OUR_FILES = [
  'k8s.io/apimachinery/pkg/apis/meta/v1/generated.proto',
  'k8s.io/apimachinery/pkg/runtime/generated.proto',
  'k8s.io/apimachinery/pkg/api/resource/generated.proto',
  'k8s.io/apimachinery/pkg/util/intstr/generated.proto',
  'k8s.io/api/core/v1/generated.proto',
  'k8s.io/api/apps/v1/generated.proto',
  'k8s.io/api/rbac/v1/generated.proto',
  'k8s.io/api/authorization/v1/generated.proto',
  'k8s.io/api/authentication/v1/generated.proto',
  'k8s.io/api/coordination/v1/generated.proto',
  'k8s.io/api/certificates/v1/generated.proto',
  'k8s.io/api/events/v1/generated.proto',
  'k8s.io/api/policy/v1/generated.proto',
  'k8s.io/api/resource/v1beta1/generated.proto',
];

/** Fields whose Go type changed between kubectl 1.32 and the 1.33 the files follow. */
const CHANGED_SINCE_1_32 = new Set([
  // resource.k8s.io/v1beta1's device status data became a pointer in 1.33.
  'k8s.io.api.resource.v1beta1.AllocatedDeviceStatus.data',
]);

/** A field as this project's schema sees it, in the descriptor's terms. */
function ours(field: FieldSchema): Omit<DescribedField, 'name' | 'number'> & { name: string; number: number } {
  const typeName = 'message' in field.value ? field.value.message.fullName : undefined;
  return {
    name: field.name,
    number: field.number,
    label: field.shape === 'single' ? 'optional' : 'repeated',
    type: 'message' in field.value ? 'message' : field.value.scalar,
    ...(typeName ? { typeName } : {}),
    nullable: field.nullable,
  };
}

/** The descriptor's field in the same terms: a map becomes its value type, nullability only for single fields. */
function theirs(message: DescribedMessage, field: DescribedField): ReturnType<typeof ours> {
  const entry = field.typeName ? message.mapEntries.get(field.typeName.slice(field.typeName.lastIndexOf('.') + 1)) : undefined;
  if (entry?.isMapEntry) {
    const value = entry.fields.find((f) => f.number === 2) as DescribedField;
    return { name: field.name, number: field.number, label: 'repeated', type: value.type, ...(value.typeName ? { typeName: value.typeName } : {}), nullable: true };
  }
  return { name: field.name, number: field.number, label: field.label, type: field.type, ...(field.typeName ? { typeName: field.typeName } : {}), nullable: field.nullable };
}

function comparable(field: ReturnType<typeof ours>, single: boolean): ReturnType<typeof ours> {
  // Go nullability means nothing for lists and maps; the descriptors mark them anyway.
  return single ? field : { ...field, nullable: true };
}

function checkMessage(file: DescribedFile, message: DescribedMessage, exact: boolean, rename = (name: string) => name): string[] {
  const problems: string[] = [];
  const fullName = rename(`${file.package}.${message.name}`);
  const schema: MessageSchema | undefined = kubeSchema().find(fullName);
  if (!schema) return [`${fullName}: missing`];
  for (const field of message.fields) {
    const mine = schema.byNumber.get(field.number);
    if (!mine) {
      problems.push(`${fullName}.${field.name} (${field.number}): missing`);
      continue;
    }
    const expected = theirs(message, field);
    if (expected.typeName) expected.typeName = rename(expected.typeName);
    const single = expected.label === 'optional';
    if (!exact && CHANGED_SINCE_1_32.has(`${fullName}.${field.name}`)) continue;
    try {
      assert.deepEqual(comparable(ours(mine), single), comparable(expected, single));
    } catch {
      problems.push(`${fullName}.${field.name}: ours ${JSON.stringify(ours(mine))}, kubectl's ${JSON.stringify(expected)}`);
    }
  }
  if (exact) {
    const known = new Set(message.fields.map((f) => f.number));
    for (const field of schema.fields) if (!known.has(field.number)) problems.push(`${fullName}.${field.name}: not in kubectl's descriptor`);
  }
  return problems;
}

describe('proto/k8s against the descriptors compiled into kubectl', () => {
  const binaries = kubectlBinaries();
  const onPath = binaries.find((b) => b.version === 'PATH');
  const newest = binaries.filter((b) => b.version !== 'PATH').sort((a, b) => Number(b.version.split('.')[1]) - Number(a.version.split('.')[1]))[0];
  let pathFiles: Map<string, DescribedFile>;
  let newestFiles: Map<string, DescribedFile> | undefined;

  before(() => {
    assert.ok(onPath, 'kubectl must be on the PATH');
    pathFiles = descriptorsIn(onPath.binary);
    if (newest && Number(newest.version.split('.')[1]) >= 33) newestFiles = descriptorsIn(newest.binary);
  });

  it('every message and field of the kubectl on the PATH is ours, with the same number, type and nullability', () => {
    const problems: string[] = [];
    let checked = 0;
    for (const name of OUR_FILES) {
      const file = pathFiles.get(name);
      assert.ok(file, `kubectl has no ${name}`);
      for (const message of file.messages) {
        problems.push(...checkMessage(file, message, false));
        checked += message.fields.length;
      }
    }
    assert.deepEqual(problems, []);
    assert.ok(checked > 1500, `only ${checked} fields compared`);
  });

  it('against kubectl 1.33, the version the files were written from, nothing is missing and nothing is extra', (t) => {
    if (!newestFiles) return t.skip('no kubectl 1.33 or newer beside the one on the PATH');
    const problems: string[] = [];
    for (const name of OUR_FILES) {
      const file = newestFiles.get(name) as DescribedFile;
      for (const message of file.messages) problems.push(...checkMessage(file, message, true));
      const theirsNames = new Set(file.messages.map((m) => `${file.package}.${m.name}`));
      const oursInPackage = kubeSchema().allMessages().filter((m) => m.fullName.slice(0, m.fullName.lastIndexOf('.')) === file.package);
      for (const message of oursInPackage) if (!theirsNames.has(message.fullName)) problems.push(`${message.fullName}: not in kubectl's descriptor`);
    }
    assert.deepEqual(problems, []);
  });

  it('resource.k8s.io/v1 agrees with 1.33\'s resource/v1beta2 on every message they share', (t) => {
    const v1beta2 = newestFiles?.get('k8s.io/api/resource/v1beta2/generated.proto');
    if (!v1beta2) return t.skip('no kubectl with resource/v1beta2 beside the one on the PATH');
    const rename = (name: string): string => name.replace('k8s.io.api.resource.v1beta2.', 'k8s.io.api.resource.v1.');
    const problems = v1beta2.messages.flatMap((message) => checkMessage(v1beta2, message, false, rename));
    assert.deepEqual(problems, []);
  });
});
