// The Accept header → response format, table-driven over the headers real
// clients send and the corner cases of kube-apiserver's negotiation.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { negotiateOutput, parseAccept, type Endpoint, type OutputChoice } from '../../src/testapiserver/negotiation.js';

const RESOURCE: Endpoint = { allowsTable: true };
const DISCOVERY: Endpoint = { allowsTable: false };
const WATCH: Endpoint = { allowsTable: true, watch: true };

const KUBECTL_GET = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';
const CLIENT_GO_TYPED = 'application/vnd.kubernetes.protobuf,application/json';
const AGGREGATED_DISCOVERY = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';

const CASES: Array<{ name: string; accept: string | undefined; endpoint: Endpoint; want: OutputChoice }> = [
  { name: 'no Accept: JSON', accept: undefined, endpoint: RESOURCE, want: { format: 'json', table: false } },
  { name: 'client-go typed clients: protobuf', accept: CLIENT_GO_TYPED, endpoint: RESOURCE, want: { format: 'protobuf', table: false } },
  { name: 'client-node: JSON', accept: 'application/json', endpoint: RESOURCE, want: { format: 'json', table: false } },
  { name: 'kubectl get: a JSON Table', accept: KUBECTL_GET, endpoint: RESOURCE, want: { format: 'json', table: true } },
  { name: 'a Table on discovery: not allowed, the plain clause wins', accept: KUBECTL_GET, endpoint: DISCOVERY, want: { format: 'json', table: false } },
  { name: 'a protobuf Table: protobuf has none, the next clause wins', accept: 'application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io,application/vnd.kubernetes.protobuf', endpoint: RESOURCE, want: { format: 'protobuf', table: false } },
  { name: 'aggregated discovery is not served: plain JSON', accept: AGGREGATED_DISCOVERY, endpoint: DISCOVERY, want: { format: 'json', table: false } },
  { name: 'q orders the clauses', accept: 'application/json;q=0.5,application/vnd.kubernetes.protobuf', endpoint: RESOURCE, want: { format: 'protobuf', table: false } },
  { name: 'a concrete type before */*', accept: '*/*,application/vnd.kubernetes.protobuf', endpoint: RESOURCE, want: { format: 'protobuf', table: false } },
  { name: '*/* alone: the first served type, JSON', accept: '*/*', endpoint: RESOURCE, want: { format: 'json', table: false } },
  { name: 'application/*: JSON', accept: 'application/*', endpoint: RESOURCE, want: { format: 'json', table: false } },
  { name: 'YAML', accept: 'application/yaml', endpoint: RESOURCE, want: { format: 'yaml', table: false } },
  { name: 'YAML has no watch stream: the next clause', accept: 'application/yaml,application/vnd.kubernetes.protobuf', endpoint: WATCH, want: { format: 'protobuf', table: false } },
  { name: 'stream=watch on protobuf', accept: 'application/vnd.kubernetes.protobuf;stream=watch', endpoint: WATCH, want: { format: 'protobuf', table: false } },
  { name: 'an unknown stream schema is skipped', accept: 'application/vnd.kubernetes.protobuf;stream=other,application/json', endpoint: WATCH, want: { format: 'json', table: false } },
  { name: 'nothing served: JSON, as upstream falls back', accept: 'text/html,image/png', endpoint: RESOURCE, want: { format: 'json', table: false } },
  { name: 'a malformed clause is dropped', accept: 'garbage,application/vnd.kubernetes.protobuf', endpoint: RESOURCE, want: { format: 'protobuf', table: false } },
  { name: 'media types are case-insensitive', accept: 'Application/Vnd.Kubernetes.Protobuf', endpoint: RESOURCE, want: { format: 'protobuf', table: false } },
];

describe('content negotiation', () => {
  for (const c of CASES) {
    it(c.name, () => assert.deepEqual(negotiateOutput(c.accept, c.endpoint), c.want));
  }

  it('parses parameters, quoted values and q', () => {
    const [clause] = parseAccept('application/json; as="Table" ;q=0.7');
    assert.equal(clause.q, 0.7);
    assert.equal(clause.params.get('as'), 'Table');
  });
});
