// The Accept header → response format, table-driven over the headers real
// clients send and the corner cases of kube-apiserver's negotiation.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { negotiateOutput, parseAccept, type Endpoint, type OutputChoice } from '../../src/testapiserver/negotiation.js';

const RESOURCE: Endpoint = { conversions: ['Table'] };
const DISCOVERY: Endpoint = { conversions: [] };
const ROOT_DISCOVERY: Endpoint = { conversions: ['APIGroupDiscoveryList'] };
const WATCH: Endpoint = { conversions: ['Table'], watch: true };

const KUBECTL_GET = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';
const CLIENT_GO_TYPED = 'application/vnd.kubernetes.protobuf,application/json';
const AGGREGATED_DISCOVERY = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';

const CASES: Array<{ name: string; accept: string | undefined; endpoint: Endpoint; want: OutputChoice }> = [
  { name: 'no Accept: JSON', accept: undefined, endpoint: RESOURCE, want: { format: 'json' } },
  { name: 'client-go typed clients: protobuf', accept: CLIENT_GO_TYPED, endpoint: RESOURCE, want: { format: 'protobuf' } },
  { name: 'client-node: JSON', accept: 'application/json', endpoint: RESOURCE, want: { format: 'json' } },
  { name: 'kubectl get: a JSON Table', accept: KUBECTL_GET, endpoint: RESOURCE, want: { format: 'json', as: 'Table' } },
  { name: 'a Table on discovery: not allowed, the plain clause wins', accept: KUBECTL_GET, endpoint: DISCOVERY, want: { format: 'json' } },
  { name: 'a protobuf Table: protobuf has none, the next clause wins', accept: 'application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io,application/vnd.kubernetes.protobuf', endpoint: RESOURCE, want: { format: 'protobuf' } },
  { name: 'kubectl\'s discovery at /api and /apis: aggregated v2 in JSON', accept: AGGREGATED_DISCOVERY, endpoint: ROOT_DISCOVERY, want: { format: 'json', as: 'APIGroupDiscoveryList' } },
  { name: 'aggregated discovery below /apis/<group>: the plain clause', accept: AGGREGATED_DISCOVERY, endpoint: DISCOVERY, want: { format: 'json' } },
  { name: 'aggregated discovery in protobuf is not written here: the next clause', accept: `application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,${AGGREGATED_DISCOVERY}`, endpoint: ROOT_DISCOVERY, want: { format: 'json', as: 'APIGroupDiscoveryList' } },
  { name: 'only v2beta1 aggregated discovery: legacy discovery', accept: 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json', endpoint: ROOT_DISCOVERY, want: { format: 'json' } },
  { name: 'q orders the clauses', accept: 'application/json;q=0.5,application/vnd.kubernetes.protobuf', endpoint: RESOURCE, want: { format: 'protobuf' } },
  { name: 'a concrete type before */*', accept: '*/*,application/vnd.kubernetes.protobuf', endpoint: RESOURCE, want: { format: 'protobuf' } },
  { name: '*/* alone: the first served type, JSON', accept: '*/*', endpoint: RESOURCE, want: { format: 'json' } },
  { name: 'application/*: JSON', accept: 'application/*', endpoint: RESOURCE, want: { format: 'json' } },
  { name: 'YAML', accept: 'application/yaml', endpoint: RESOURCE, want: { format: 'yaml' } },
  { name: 'YAML has no watch stream: the next clause', accept: 'application/yaml,application/vnd.kubernetes.protobuf', endpoint: WATCH, want: { format: 'protobuf' } },
  { name: 'stream=watch on protobuf', accept: 'application/vnd.kubernetes.protobuf;stream=watch', endpoint: WATCH, want: { format: 'protobuf' } },
  { name: 'an unknown stream schema is skipped', accept: 'application/vnd.kubernetes.protobuf;stream=other,application/json', endpoint: WATCH, want: { format: 'json' } },
  { name: 'nothing served: JSON, as upstream falls back', accept: 'text/html,image/png', endpoint: RESOURCE, want: { format: 'json' } },
  { name: 'a malformed clause is dropped', accept: 'garbage,application/vnd.kubernetes.protobuf', endpoint: RESOURCE, want: { format: 'protobuf' } },
  { name: 'media types are case-insensitive', accept: 'Application/Vnd.Kubernetes.Protobuf', endpoint: RESOURCE, want: { format: 'protobuf' } },
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
