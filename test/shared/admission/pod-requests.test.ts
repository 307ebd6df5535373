import assert from 'node:assert/strict';
import { test } from 'node:test';
import { podRequests, type ResourceVector } from '../../../src/shared/admission/pod-requests.js';
import type { Pod } from '../../../src/shared/types.js';
import { container, pod } from './fixtures.js';

const MI = 1024 ** 2;
const SIDECAR = { restartPolicy: 'Always' } as const;

const cases: Array<{ name: string; pod: Pod; want: ResourceVector }> = [
  {
    name: 'no requests',
    pod: pod(),
    want: { cpuMillis: 0, memoryBytes: 0, ephemeralStorageBytes: 0 },
  },
  {
    name: 'app containers are summed',
    pod: pod({ containers: [container('a', { cpu: '100m', memory: '64Mi' }), container('b', { cpu: '1', 'ephemeral-storage': '1Gi' })] }),
    want: { cpuMillis: 1100, memoryBytes: 64 * MI, ephemeralStorageBytes: 1024 * MI },
  },
  {
    name: 'limits stand in for missing requests',
    pod: pod({ containers: [{ name: 'a', resources: { limits: { cpu: '500m', memory: '1Gi' }, requests: { cpu: '200m' } } }] }),
    want: { cpuMillis: 200, memoryBytes: 1024 * MI, ephemeralStorageBytes: 0 },
  },
  {
    // The upstream example: max(sum(app) = 3 cpu / 2G, largest init = 2 cpu / 3G).
    name: 'regular init containers: max of the app sum and any one init container',
    pod: pod({
      initContainers: [container('i1', { cpu: '2', memory: '1G' }), container('i2', { cpu: '2', memory: '3G' })],
      containers: [container('c1', { cpu: '2', memory: '1G' }), container('c2', { cpu: '1', memory: '1G' })],
    }),
    want: { cpuMillis: 3000, memoryBytes: 3e9, ephemeralStorageBytes: 0 },
  },
  {
    name: 'a sidecar adds to the app sum',
    pod: pod({
      initContainers: [container('proxy', { cpu: '200m', memory: '100Mi' }, SIDECAR)],
      containers: [container('app', { cpu: '1', memory: '1Gi' })],
    }),
    want: { cpuMillis: 1200, memoryBytes: 1124 * MI, ephemeralStorageBytes: 0 },
  },
  {
    // init2 runs next to sidecar1: 1 + 2 = 3 cpu beats app + sidecar = 1.5.
    name: 'a regular init container after a sidecar counts with it',
    pod: pod({
      initContainers: [container('sidecar1', { cpu: '1' }, SIDECAR), container('init2', { cpu: '2' })],
      containers: [container('app', { cpu: '500m' })],
    }),
    want: { cpuMillis: 3000, memoryBytes: 0, ephemeralStorageBytes: 0 },
  },
  {
    // init1 runs before the sidecar starts: 2 alone, but app + sidecar = 3.
    name: 'a regular init container before a sidecar does not count with it',
    pod: pod({
      initContainers: [container('init1', { cpu: '2' }), container('sidecar', { cpu: '1' }, SIDECAR)],
      containers: [container('app', { cpu: '2' })],
    }),
    want: { cpuMillis: 3000, memoryBytes: 0, ephemeralStorageBytes: 0 },
  },
  {
    name: 'overhead is added on top',
    pod: pod({ containers: [container('app', { cpu: '1', memory: '1Gi' })], overhead: { cpu: '250m', memory: '120Mi' } }),
    want: { cpuMillis: 1250, memoryBytes: 1144 * MI, ephemeralStorageBytes: 0 },
  },
];

for (const c of cases) {
  test(`podRequests: ${c.name}`, () => {
    assert.deepEqual(podRequests(c.pod), c.want);
  });
}
