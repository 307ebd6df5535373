// The Kubernetes messages of proto/k8s, loaded once with protobufjs and reduced to
// what the codec needs per field: number, wire shape, Go nullability and JSON
// inlining (the gogoproto options the .proto files carry), and whether the message
// is one of apimachinery's types whose JSON form is a scalar (Time, Quantity, …).
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import protobuf from 'protobufjs';
import { projectProtoPath } from '../../shared/project-path.js';

/** The API packages loaded; their imports (meta/v1, runtime, resource, intstr) come along. */
const API_PROTO_FILES = [
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
  'k8s.io/api/resource/v1/generated.proto',
];

const META = 'k8s.io.apimachinery.pkg.apis.meta.v1';

/** apimachinery types whose JSON form is not an object of their fields. */
export type SpecialKind = 'time' | 'microTime' | 'duration' | 'quantity' | 'intOrString' | 'rawExtension' | 'fieldsV1' | 'stringList';

const SPECIAL_KINDS: Record<string, SpecialKind> = {
  [`${META}.Time`]: 'time',
  [`${META}.MicroTime`]: 'microTime',
  [`${META}.Duration`]: 'duration',
  [`${META}.FieldsV1`]: 'fieldsV1',
  [`${META}.Verbs`]: 'stringList',
  'k8s.io.api.authentication.v1.ExtraValue': 'stringList',
  'k8s.io.api.authorization.v1.ExtraValue': 'stringList',
  'k8s.io.api.certificates.v1.ExtraValue': 'stringList',
  'k8s.io.apimachinery.pkg.api.resource.Quantity': 'quantity',
  'k8s.io.apimachinery.pkg.util.intstr.IntOrString': 'intOrString',
  'k8s.io.apimachinery.pkg.runtime.RawExtension': 'rawExtension',
};

/** The scalar types Kubernetes' messages use (no unsigned, no floating point). */
export type ScalarType = 'string' | 'bytes' | 'bool' | 'int32' | 'int64';

/** What one entry of a field holds: a scalar, or a message. */
export type ValueType = { scalar: ScalarType } | { message: MessageSchema };

export interface FieldSchema {
  name: string;
  number: number;
  /** `repeated`: a JSON array; `map`: a JSON object keyed by strings. */
  shape: 'single' | 'repeated' | 'map';
  value: ValueType;
  /** A Go pointer (no `(gogoproto.nullable) = false`): present means set, even to zero. */
  nullable: boolean;
  /** `(gogoproto.jsontag) = ",inline"`: JSON lifts the message's fields into the parent. */
  inline: boolean;
}

export interface MessageSchema {
  /** Without the leading dot: `k8s.io.api.core.v1.Pod`. */
  fullName: string;
  special?: SpecialKind;
  /** In declaration order, which is the Go struct's and so the JSON form's order. */
  fields: FieldSchema[];
  /** In field-number order, the order Go writes them. */
  fieldsByNumber: FieldSchema[];
  byNumber: Map<number, FieldSchema>;
}

const SCALAR_TYPES = new Set<string>(['string', 'bytes', 'bool', 'int32', 'int64']);

/** protobufjs's bundled google/protobuf/descriptor.proto, which gogo.proto extends. */
function bundledDescriptorProto(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve('protobufjs/package.json')), 'google', 'protobuf', 'descriptor.proto');
}

function loadRoot(): protobuf.Root {
  const k8sRoot = projectProtoPath(join('proto', 'k8s'));
  const root = new protobuf.Root();
  // Imports name paths below proto/k8s, as upstream's name them below GOPATH/src.
  root.resolvePath = (_origin, target) => (target === 'google/protobuf/descriptor.proto' ? bundledDescriptorProto() : join(k8sRoot, target));
  root.loadSync(API_PROTO_FILES, { keepCase: true });
  root.resolveAll();
  return root;
}

export class KubeSchema {
  private readonly messages = new Map<string, MessageSchema>();

  constructor(private readonly root: protobuf.Root) {}

  /** The message of a full name (`k8s.io.api.core.v1.Pod`), or undefined. */
  find(fullName: string): MessageSchema | undefined {
    const cached = this.messages.get(fullName);
    if (cached) return cached;
    const type = this.root.lookup(fullName);
    if (!(type instanceof protobuf.Type)) return undefined;
    return this.describe(type);
  }

  get(fullName: string): MessageSchema {
    const found = this.find(fullName);
    if (!found) throw new Error(`no message ${fullName} in proto/k8s`);
    return found;
  }

  /** Every message of the loaded API packages (not the map-entry helpers). */
  allMessages(): MessageSchema[] {
    const out: MessageSchema[] = [];
    const visit = (ns: protobuf.NamespaceBase): void => {
      for (const nested of ns.nestedArray) {
        if (nested instanceof protobuf.Type) out.push(this.describe(nested));
        else if (nested instanceof protobuf.Namespace) visit(nested);
      }
    };
    visit(this.root.lookup('k8s') as protobuf.Namespace);
    return out;
  }

  private describe(type: protobuf.Type): MessageSchema {
    const fullName = type.fullName.replace(/^\./, '');
    const existing = this.messages.get(fullName);
    if (existing) return existing;
    const schema: MessageSchema = { fullName, special: SPECIAL_KINDS[fullName], fields: [], fieldsByNumber: [], byNumber: new Map() };
    // Registered before the fields so that a message that reaches itself terminates.
    this.messages.set(fullName, schema);
    for (const field of type.fieldsArray) {
      const described = this.describeField(field);
      schema.fields.push(described);
      schema.byNumber.set(described.number, described);
    }
    schema.fieldsByNumber = [...schema.fields].sort((a, b) => a.number - b.number);
    return schema;
  }

  private describeField(field: protobuf.Field): FieldSchema {
    const options = field.options ?? {};
    const valueOf = (typeName: string, resolved: protobuf.ReflectionObject | null): ValueType => {
      if (SCALAR_TYPES.has(typeName)) return { scalar: typeName as ScalarType };
      if (resolved instanceof protobuf.Type) return { message: this.describe(resolved) };
      throw new Error(`field ${field.fullName} has type ${typeName}, which the Kubernetes codec does not handle`);
    };
    const shape = field instanceof protobuf.MapField ? 'map' : field.repeated ? 'repeated' : 'single';
    if (field instanceof protobuf.MapField && field.keyType !== 'string') throw new Error(`map ${field.fullName} has ${field.keyType} keys; Kubernetes maps have string keys`);
    return {
      name: field.name,
      number: field.id,
      shape,
      value: valueOf(field.type, field.resolvedType),
      nullable: options['(gogoproto.nullable)'] !== false,
      inline: options['(gogoproto.jsontag)'] === ',inline',
    };
  }
}

let loaded: KubeSchema | undefined;

/** The schema, parsed on first use (about 3,000 lines of .proto). */
export function kubeSchema(): KubeSchema {
  loaded ??= new KubeSchema(loadRoot());
  return loaded;
}
