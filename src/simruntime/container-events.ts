// GetContainerEvents of the simulated runtime, as a runtime that implements it
// (containerd 1.7+, CRI-O) serves it: one event per state change, written to every
// open stream in the order the changes happen, each carrying the pod sandbox's
// status and the statuses of the sandbox's containers at that moment. Sandboxes
// have events too, under the sandbox's ID, as containerd sends them (created and
// started by RunPodSandbox, stopped, deleted); upstream's evented PLEG tells them
// from containers by that ID. A stream lives until the client cancels it or the
// sim closes (which ends it). What differs between runtimes follows the sim's
// personality (personality.ts): containerd 1.6 fails the call UNIMPLEMENTED, as its
// server answers a method it does not know; CRI-O without enable_pod_events ends
// the stream at once with OK; CRI-O with it sends no sandbox STARTED or DELETED.
import { status as GrpcStatus, type ServerWritableStream } from '@grpc/grpc-js';
import type * as cri from '../shared/cri/types.js';
import type { RuntimePersonality } from './personality.js';
import { nowNs, type ContainerRecord, type SandboxRecord, type StateStore } from './state-store.js';
import { toContainerStatus, toPodSandboxStatus } from './views.js';

export type ContainerEventType = cri.ContainerEventResponse__Output['container_event_type'];
type EventStream = ServerWritableStream<cri.GetEventsRequest__Output, cri.ContainerEventResponse>;

/** What the rest of the sim tells the event streams. */
export interface ContainerEventSink {
  containerChanged(container: ContainerRecord, type: ContainerEventType): void;
}

/** containerd 1.6's gRPC server on a method it does not serve. */
export const UNIMPLEMENTED_DETAILS = 'unknown method GetContainerEvents for service runtime.v1.RuntimeService';

export class ContainerEvents implements ContainerEventSink {
  private readonly streams = new Set<EventStream>();

  constructor(
    private readonly store: StateStore,
    private readonly personality: Pick<RuntimePersonality, 'containerEvents' | 'containerDeletedEvents' | 'sandboxDeletedEvents' | 'sandboxStartedEvents'>,
  ) {}

  /** True when GetContainerEvents streams events. */
  get enabled(): boolean {
    return this.personality.containerEvents === 'stream';
  }

  /** Serves one GetContainerEvents call until the client cancels it or the sim closes. */
  serve(call: EventStream): void {
    if (this.personality.containerEvents === 'unimplemented') {
      call.emit('error', { code: GrpcStatus.UNIMPLEMENTED, details: UNIMPLEMENTED_DETAILS });
      return;
    }
    if (this.personality.containerEvents === 'empty-stream') {
      // CRI-O's GetContainerEvents returns nil at once when enable_pod_events is false.
      call.end();
      return;
    }
    this.streams.add(call);
    const drop = (): void => {
      this.streams.delete(call);
    };
    call.once('cancelled', drop);
    call.once('close', drop);
    call.once('error', drop);
  }

  /** Streams open now. */
  get openStreams(): number {
    return this.streams.size;
  }

  containerChanged(container: ContainerRecord, type: ContainerEventType): void {
    if (this.streams.size === 0) return;
    if (type === 'CONTAINER_DELETED_EVENT' && !this.personality.containerDeletedEvents) return;
    this.send(container.id, type, this.store.findSandbox(container.sandboxId));
  }

  sandboxChanged(sandbox: SandboxRecord, type: ContainerEventType): void {
    if (this.streams.size === 0) return;
    if (type === 'CONTAINER_DELETED_EVENT' && !this.personality.sandboxDeletedEvents) return;
    if (type === 'CONTAINER_STARTED_EVENT' && !this.personality.sandboxStartedEvents) return;
    this.send(sandbox.id, type, sandbox);
  }

  /** Ends every stream (the sim is closing): clients see their stream end and open it again elsewhere. */
  endAll(): void {
    for (const call of this.streams) call.end();
    this.streams.clear();
  }

  private send(id: string, type: ContainerEventType, sandbox: SandboxRecord | undefined): void {
    const event: cri.ContainerEventResponse = {
      container_id: id,
      container_event_type: type,
      created_at: nowNs(),
      pod_sandbox_status: sandbox ? toPodSandboxStatus(sandbox) : null,
      containers_statuses: sandbox ? this.store.containersOf(sandbox.id).map((container) => toContainerStatus(container, sandbox)) : [],
    };
    for (const call of this.streams) call.write(event);
  }
}
