// shardlet's series of the evented PLEG: container events from the runtime, the
// per-pod relists they trigger, and the event stream's connections. The PLEG
// thread counts them and hands the counts up with each full relist, so the figures
// lag by at most one relist period. Upstream's own evented PLEG counters
// (kubelet_evented_pleg_connection_*_count) are counters without the _total
// suffix, which the exposition's lint refuses, hence names of our own.
import client from 'prom-client';
import type { EventedPlegCounts } from '../../shared/shard-protocol.js';
import { helpText } from './stability.js';

export class PlegMetrics {
  private readonly containerEvents: client.Counter;
  private readonly podRelists: client.Counter<'result'>;
  private readonly streamConnects: client.Counter;
  private readonly streamErrors: client.Counter;
  private readonly eventsLive: client.Gauge;

  constructor(registry: client.Registry) {
    const registers = [registry];
    this.containerEvents = new client.Counter({
      name: 'shardlet_pleg_container_events_total',
      help: helpText('ALPHA', 'Cumulative number of container events received from the runtime (CRI GetContainerEvents).'),
      registers,
    });
    this.podRelists = new client.Counter({
      name: 'shardlet_pleg_pod_relists_total',
      help: helpText('ALPHA', 'Cumulative number of one-pod relists that container events triggered, by result.'),
      labelNames: ['result'],
      registers,
    });
    this.streamConnects = new client.Counter({
      name: 'shardlet_pleg_event_stream_connects_total',
      help: helpText('ALPHA', 'Cumulative number of times the PLEG opened the container event stream.'),
      registers,
    });
    this.streamErrors = new client.Counter({
      name: 'shardlet_pleg_event_stream_errors_total',
      help: helpText('ALPHA', 'Cumulative number of container event streams that failed or ended, UNIMPLEMENTED included.'),
      registers,
    });
    this.eventsLive = new client.Gauge({
      name: 'shardlet_pleg_container_events_live',
      help: helpText('ALPHA', '1 while the PLEG receives container events from the runtime, 0 while it relists alone.'),
      registers,
    });
  }

  /** One full relist period's counts. */
  observe(counts: EventedPlegCounts): void {
    this.containerEvents.inc(counts.containerEvents);
    this.podRelists.inc({ result: 'success' }, counts.podRelists - counts.podRelistErrors);
    this.podRelists.inc({ result: 'error' }, counts.podRelistErrors);
    this.streamConnects.inc(counts.streamConnects);
    this.streamErrors.inc(counts.streamErrors);
    this.eventsLive.set(counts.live ? 1 : 0);
  }
}
