import assert from 'node:assert/strict';
import { test } from 'node:test';
import { resourceMetricsText } from '../../../src/main/metrics/resource-metrics.js';
import type { Summary } from '../../../src/main/stats/summary-types.js';

const summary: Summary = {
  node: {
    nodeName: 'n1',
    startTime: '2026-11-24T00:00:00Z',
    cpu: { time: '2026-11-24T10:00:00Z', usageCoreNanoSeconds: 12_500_000_000 },
    memory: { time: '2026-11-24T10:00:01Z', workingSetBytes: 1_000_000 },
  },
  pods: [
    {
      podRef: { name: 'web', namespace: 'default', uid: 'u1' },
      startTime: '2026-11-24T09:00:00Z',
      containers: [
        {
          name: 'app"x',
          startTime: '2026-11-24T09:00:05Z',
          cpu: { time: '2026-11-24T10:00:00Z', usageCoreNanoSeconds: 500_000_000 },
          memory: { time: '2026-11-24T10:00:00Z', workingSetBytes: 4096 },
        },
      ],
      cpu: { time: '2026-11-24T10:00:00Z', usageCoreNanoSeconds: 600_000_000 },
      memory: { time: '2026-11-24T10:00:00Z', workingSetBytes: 5000 },
    },
  ],
};

test('resource metrics carry upstream names, labels, values in seconds and the figures’ own timestamps', () => {
  const text = resourceMetricsText(summary);
  const at = Date.parse('2026-11-24T10:00:00Z');
  assert.match(text, /^# HELP node_cpu_usage_seconds_total \[STABLE\] Cumulative cpu time consumed by the node in core-seconds$/m);
  assert.match(text, /^# TYPE node_cpu_usage_seconds_total counter$/m);
  assert.ok(text.includes(`\nnode_cpu_usage_seconds_total 12.5 ${at}\n`));
  assert.ok(text.includes(`\nnode_memory_working_set_bytes 1000000 ${at + 1000}\n`));
  assert.ok(text.includes(`\ncontainer_cpu_usage_seconds_total{container="app\\"x",namespace="default",pod="web"} 0.5 ${at}\n`));
  assert.ok(text.includes(`\ncontainer_memory_working_set_bytes{container="app\\"x",namespace="default",pod="web"} 4096 ${at}\n`));
  assert.ok(text.includes(`\ncontainer_start_time_seconds{container="app\\"x",namespace="default",pod="web"} ${Date.parse('2026-11-24T09:00:05Z') / 1000}\n`));
  assert.ok(text.includes(`\npod_cpu_usage_seconds_total{namespace="default",pod="web"} 0.6 ${at}\n`));
  assert.ok(text.includes(`\npod_memory_working_set_bytes{namespace="default",pod="web"} 5000 ${at}\n`));
  assert.ok(text.includes('\nscrape_error 0\n'));
  assert.ok(text.includes('\nresource_scrape_error 0\n'));
});

test('without a summary (the runtime failed) the scrape still answers, with the error gauges at 1', () => {
  const text = resourceMetricsText(undefined);
  assert.ok(text.includes('\nscrape_error 1\n'));
  assert.ok(text.includes('\nresource_scrape_error 1\n'));
  assert.ok(!/^container_cpu_usage_seconds_total/m.test(text));
});
