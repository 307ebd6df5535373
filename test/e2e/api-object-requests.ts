// What the Node authorizer allows a node to read of Secrets and ConfigMaps, checked
// against the test API server's request log: only objects that pods bound to that
// node reference, and only by name (get, or list/watch with a `metadata.name` field
// selector). Shared by the e2e tests of per-object watches.
import assert from 'node:assert/strict';
import type { RecordedRequest } from '../../src/testapiserver/request-log.js';
import type { TestApiServer } from '../../src/testapiserver/server.js';
import { waitUntil } from '../helpers/kubelet-process.js';

export const OBJECT_RESOURCES = new Set(['secrets', 'configmaps']);

/** `<resource>/<namespace>/<name>`, as the tests name a referenced object. */
export function objectId(resource: 'secrets' | 'configmaps', namespace: string, name: string): string {
  return `${resource}/${namespace}/${name}`;
}

/** The single name a `metadata.name=<name>` field selector (with nothing else) asks for. */
export function selectedName(fieldSelector: string | undefined): string | undefined {
  const match = /^metadata\.name=((?:[^\\,=]|\\.)*)$/.exec(fieldSelector ?? '');
  return match?.[1].replace(/\\(.)/g, '$1');
}

/** The node's requests for Secrets and ConfigMaps, from the server's log. */
export function objectRequestsBy(api: TestApiServer, nodeName: string): RecordedRequest[] {
  return api.requestLog().filter((request) => request.user === `system:node:${nodeName}` && OBJECT_RESOURCES.has(request.resource));
}

/** The Secret and ConfigMap watches the node holds open now, as object ids. */
export function openObjectWatchesOf(api: TestApiServer, nodeName: string): string[] {
  return api
    .openWatches()
    .filter((watch) => watch.user === `system:node:${nodeName}` && OBJECT_RESOURCES.has(watch.resource))
    .map((watch) => objectId(watch.resource as 'secrets' | 'configmaps', watch.namespace ?? '', selectedName(watch.fieldSelector) ?? '*'))
    .sort();
}

/**
 * Fails unless every Secret or ConfigMap request the node made names, by a get or a
 * `metadata.name` field selector, one of `allowed` (the objects its pods referenced).
 */
export function assertReadsOnlyByName(api: TestApiServer, nodeName: string, allowed: ReadonlySet<string>): RecordedRequest[] {
  const requests = objectRequestsBy(api, nodeName);
  for (const request of requests) {
    const shape = JSON.stringify(request);
    assert.ok(['get', 'list', 'watch'].includes(request.verb), `a read: ${shape}`);
    assert.ok(request.namespace, `namespaced: ${shape}`);
    assert.equal(request.labelSelector, undefined, `no label selector: ${shape}`);
    const name = request.verb === 'get' ? request.name : selectedName(request.fieldSelector);
    assert.ok(name !== undefined, `names one object: ${shape}`);
    const id = objectId(request.resource as 'secrets' | 'configmaps', request.namespace, name);
    assert.ok(allowed.has(id), `${id} is referenced by a pod on ${nodeName}: ${shape}`);
  }
  return requests;
}

/** The kubelet logged (at -v 4) that it stopped watching the object: no pod refers to it, or it is immutable. */
export function stoppedWatching(logs: Array<Record<string, unknown>>, id: string, reason: 'released' | 'immutable'): boolean {
  const message = reason === 'released' ? 'Stopped watching an API object: no pod refers to it' : 'Stopped watching for changes - object is immutable';
  return logs.some((line) => line.msg === message && `${line.kind}/${line.namespace}/${line.name}` === id);
}

/**
 * Waits until the kubelet said it stopped watching each object and the server holds
 * none of their watches open. Both, because a watch that is only reconnecting (client-node
 * ends an idle one now and then) is briefly absent from the server too.
 */
export async function waitUntilUnwatched(
  api: TestApiServer,
  nodeName: string,
  logs: Array<Record<string, unknown>>,
  ids: Array<{ id: string; reason: 'released' | 'immutable' }>,
  timeoutMs: number,
): Promise<void> {
  for (const { id, reason } of ids) await waitUntil(async () => stoppedWatching(logs, id, reason), timeoutMs, `the kubelet stopped watching ${id} (${reason})`);
  await waitUntil(async () => !openObjectWatchesOf(api, nodeName).some((open) => ids.some(({ id }) => id === open)), timeoutMs, `no watch of ${ids.map(({ id }) => id).join(', ')} open on the server`);
}
