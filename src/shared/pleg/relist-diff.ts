// The comparison at the heart of upstream's GenericPLEG.relist: two snapshots of
// every sandbox and container the runtime holds, turned into per-pod lifecycle
// events. Pure, so it is tested on its own and runs wherever the relist runs.
// One event per changed object, where upstream's generateEvents gives a container
// that vanished while running two (ContainerDied, then ContainerRemoved): the pod
// workers judge events by the object's new state, never by the type, so the second
// would only repeat the same wake-up.
import type { RuntimePodStatus } from '../runtime-pod.js';
import type { PlegEvent, RuntimeObjectState } from '../shard-protocol.js';

/** What the relist keeps of one runtime object: its pod and a coarse state. */
export interface RelistEntry {
  podUid: string;
  kind: 'sandbox' | 'container';
  state: RuntimeObjectState;
}

/** A pod's objects in the relist's terms, so a sync's view can be matched against later relist events. */
export function runtimeObjectStates(runtime: RuntimePodStatus): Record<string, RuntimeObjectState> {
  const states: Record<string, RuntimeObjectState> = {};
  for (const sandbox of runtime.sandboxes) states[sandbox.id] = sandbox.state === 'ready' ? 'running' : 'exited';
  for (const container of runtime.containers) states[container.id] = container.state;
  return states;
}

export type RelistSnapshot = Map<string, RelistEntry>;

/** Upstream's generateEvents: the event (if any) for one object's old → new state. */
function eventFor(id: string, before: RelistEntry | undefined, after: RelistEntry | undefined): PlegEvent | undefined {
  const entry = after ?? before;
  if (!entry) return undefined;
  const oldState = before?.state ?? 'none';
  const newState = after?.state ?? 'none';
  if (oldState === newState) return undefined;
  const podUid = entry.podUid;
  const state = newState;
  if (entry.kind === 'sandbox') return { podUid, type: 'PodSandboxChanged', id, state };
  switch (newState) {
    case 'running':
      return { podUid, type: 'ContainerStarted', id, state };
    case 'exited':
      return { podUid, type: 'ContainerDied', id, state };
    case 'unknown':
      return { podUid, type: 'ContainerChanged', id, state };
    case 'none':
      // Gone without being seen exited: ContainerDied alone (upstream adds ContainerRemoved after it).
      return oldState === 'exited' ? { podUid, type: 'ContainerRemoved', id, state } : { podUid, type: 'ContainerDied', id, state };
    default:
      return { podUid, type: 'ContainerChanged', id, state };
  }
}

/** Events for every object whose state differs between the two snapshots. */
export function diffSnapshots(previous: RelistSnapshot, current: RelistSnapshot): PlegEvent[] {
  const events: PlegEvent[] = [];
  for (const [id, after] of current) {
    const event = eventFor(id, previous.get(id), after);
    if (event) events.push(event);
  }
  for (const [id, before] of previous) {
    if (current.has(id)) continue;
    const event = eventFor(id, before, undefined);
    if (event) events.push(event);
  }
  return events;
}
