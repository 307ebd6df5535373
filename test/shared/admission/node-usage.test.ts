// The node usage admission reads, kept incrementally as pods are counted, replaced and
// dropped, must always be what counting the current pods from scratch gives: the pod
// count, the summed requests, and which host ports are taken (with and without the
// candidate itself). The recount here is the plain per-pod walk admission used to do.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { hostPortsConflict, podHostPorts, type HostPort } from '../../../src/shared/admission/host-ports.js';
import { NodeUsageLedger, type NodeUsage } from '../../../src/shared/admission/node-usage.js';
import { addResources, emptyResources, podRequests, type ResourceVector } from '../../../src/shared/admission/pod-requests.js';
import type { Container, Pod } from '../../../src/shared/types.js';

const NUM_RUNS = 300;
const UIDS = ['u1', 'u2', 'u3', 'u4', 'u5', 'u6'];
const HOST_IPS = ['', '0.0.0.0', '10.0.0.1', '10.0.0.2'];
const PROTOCOLS = [undefined, 'TCP', 'UDP'];
const HOST_PORTS = [80, 443, 8080];

const quantity = (unit: string, max: number) => fc.integer({ min: 0, max }).map((n) => `${n}${unit}`);
const requests = fc.record(
  { cpu: fc.oneof(quantity('m', 4000), quantity('', 8)), memory: fc.oneof(quantity('Mi', 4096), quantity('', 1_000_000)), 'ephemeral-storage': quantity('Gi', 100) },
  { requiredKeys: [] },
);
const port = fc.record(
  { containerPort: fc.constant(80), hostPort: fc.constantFrom(0, ...HOST_PORTS), hostIP: fc.constantFrom(...HOST_IPS), protocol: fc.constantFrom(...PROTOCOLS) },
  { requiredKeys: ['containerPort'] },
);
const container = (name: string): fc.Arbitrary<Container> =>
  fc.record({ requests: fc.oneof(requests, fc.constant({ cpu: 'lots' })), ports: fc.array(port, { maxLength: 2 }) }).map((c) => ({
    name,
    image: 'busybox',
    resources: { requests: c.requests as Record<string, string> },
    ports: c.ports.map((p) => Object.fromEntries(Object.entries(p).filter(([, value]) => value !== undefined && value !== ''))) as unknown as Container['ports'],
  }));
const pod = fc
  .record({ containers: fc.array(container('app'), { minLength: 1, maxLength: 2 }), initContainers: fc.array(container('init'), { maxLength: 1 }), uid: fc.constantFrom(...UIDS) })
  .map(({ containers, initContainers, uid }): Pod => ({
    metadata: { uid, name: uid, namespace: 'default' },
    spec: { containers: containers.map((c, i) => ({ ...c, name: `app${i}` })), initContainers },
  }));
const step = fc.oneof(
  { weight: 3, arbitrary: pod.map((p) => ({ uid: p.metadata!.uid!, pod: p as Pod | undefined })) },
  { weight: 1, arbitrary: fc.constantFrom(...UIDS).map((uid) => ({ uid, pod: undefined as Pod | undefined })) },
);

/** What admission used to compute: every pod walked, its requests summed (0 when they do not parse), its ports compared. */
function recount(pods: Pod[]): { pods: number; requested: ResourceVector; taken: (port: HostPort) => boolean } {
  let requested = emptyResources();
  for (const counted of pods) {
    try {
      requested = addResources(requested, podRequests(counted));
    } catch {
      // As before: an admitted pod with a bad quantity counts 0.
    }
  }
  const used = pods.flatMap(podHostPorts);
  return { pods: pods.length, requested, taken: (wanted) => used.some((held) => hostPortsConflict(wanted, held)) };
}

const PROBE_PORTS: HostPort[] = HOST_PORTS.flatMap((number) =>
  ['0.0.0.0', '10.0.0.1', '10.0.0.2', '10.0.0.3'].flatMap((hostIP) => ['TCP', 'UDP'].map((protocol) => ({ hostIP, protocol, port: number }))),
);

function assertSame(usage: NodeUsage, expected: ReturnType<typeof recount>, what: string): void {
  assert.equal(usage.pods, expected.pods, `${what}: pods`);
  assert.deepEqual(usage.requested, expected.requested, `${what}: requested`);
  for (const probe of PROBE_PORTS) {
    assert.equal(usage.hostPortTaken(probe), expected.taken(probe), `${what}: ${probe.protocol}/${probe.hostIP}:${probe.port}`);
  }
}

test('the incremental usage equals a full recount after any sequence of adds, updates and removals, with or without the candidate', () => {
  fc.assert(
    fc.property(fc.array(step, { maxLength: 30 }), (steps) => {
      const ledger = new NodeUsageLedger();
      const podsByUid = new Map<string, Pod>();
      for (const { uid, pod: next } of steps) {
        ledger.set(uid, next);
        if (next) podsByUid.set(uid, next);
        else podsByUid.delete(uid);
        assertSame(ledger.usage(), recount([...podsByUid.values()]), 'all');
        for (const excluded of UIDS) {
          const others = [...podsByUid].filter(([other]) => other !== excluded).map(([, counted]) => counted);
          assertSame(ledger.usage(excluded), recount(others), `without ${excluded}`);
        }
      }
    }),
    { numRuns: NUM_RUNS },
  );
});

test('setting the same pod object again changes nothing; a replaced object is counted by its new requests', () => {
  const ledger = new NodeUsageLedger();
  const withCpu = (cpu: string): Pod => ({ metadata: { uid: 'a' }, spec: { containers: [{ name: 'c', image: 'i', resources: { requests: { cpu } } }] } });
  const small = withCpu('100m');
  ledger.set('a', small);
  ledger.set('a', small);
  assert.equal(ledger.usage().pods, 1);
  assert.equal(ledger.usage().requested.cpuMillis, 100);
  ledger.set('a', withCpu('600m'));
  assert.equal(ledger.usage().requested.cpuMillis, 600);
  ledger.set('a', undefined);
  assert.deepEqual(ledger.usage().requested, emptyResources());
  assert.equal(ledger.usage().pods, 0);
});
