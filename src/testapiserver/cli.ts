#!/usr/bin/env node
// shardlet's test API server as a process: for trying kubectl and the kubelet
// by hand. Writes admin.kubeconfig and <node>.kubeconfig into --kubeconfig-out.
import path from 'node:path';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { DEFAULT_NODE_NAME } from './kubeconfig.js';
import { startTestApiServer } from './server.js';

const USAGE = `usage: shardlet-test-apiserver [--port N] [--default-node-name NODE] [--kubeconfig-out DIR]
  [--node-name NODE] [--watch-history-size N] [--bookmark-interval-ms N] [--state-dir DIR]
  [--csr-auto-approve=false] [--cluster-signing-duration DURATION] [--enforce=false]

  --state-dir DIR  keep the CA, keys, objects and port in DIR and start from what an
                   earlier run left there: stop the server and start it again with the
                   same DIR and every kubeconfig it wrote still works.
  --csr-auto-approve=false  leave the kubelet's CSRs Pending (kubectl certificate approve)
  --cluster-signing-duration  lifetime of signed certificates, e.g. 8760h0m0s (default) or 90s
  --enforce=false  no Node,RBAC authorization, NodeRestriction or pod/RBAC validation:
                   every authenticated user may do everything (default: enforced as
                   kube-apiserver does; each refusal is logged as a JSON line)`;

/** A Go duration as kube-controller-manager's flags take it: 1h30m, 90s, 8760h0m0s. */
function parseGoDurationMs(text: string): number {
  const units: Record<string, number> = { h: 3600_000, m: 60_000, s: 1000, ms: 1 };
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== text) throw new Error(`--cluster-signing-duration: invalid duration ${JSON.stringify(text)}`);
  return parts.reduce((total, [, value, unit]) => total + Number(value) * units[unit], 0);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '0' },
      'default-node-name': { type: 'string' },
      'kubeconfig-out': { type: 'string' },
      'node-name': { type: 'string' },
      'watch-history-size': { type: 'string' },
      'bookmark-interval-ms': { type: 'string' },
      'state-dir': { type: 'string' },
      'csr-auto-approve': { type: 'string', default: 'true' },
      'cluster-signing-duration': { type: 'string' },
      enforce: { type: 'string', default: 'true' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const server = await startTestApiServer({
    port: Number(values.port),
    defaultNodeName: values['default-node-name'],
    watchHistorySize: values['watch-history-size'] ? Number(values['watch-history-size']) : undefined,
    bookmarkIntervalMs: values['bookmark-interval-ms'] ? Number(values['bookmark-interval-ms']) : undefined,
    stateDir: values['state-dir'] ? path.resolve(values['state-dir']) : undefined,
    autoApproveCsrs: values['csr-auto-approve'] !== 'false',
    clusterSigningDurationMs: values['cluster-signing-duration'] ? parseGoDurationMs(values['cluster-signing-duration']) : undefined,
    enforce: values.enforce !== 'false',
    logger: pino({ level: 'warn' }),
  });
  console.log(`test apiserver listening on ${server.url}`);
  const outDir = values['kubeconfig-out'];
  if (outDir) {
    const nodeName = values['node-name'] ?? values['default-node-name'] ?? DEFAULT_NODE_NAME;
    const admin = await server.writeKubeconfig(path.join(outDir, 'admin.kubeconfig'), { user: 'admin' });
    const node = await server.writeKubeconfig(path.join(outDir, `${nodeName}.kubeconfig`), { user: 'kubelet', nodeName });
    console.log(`kubeconfigs: ${admin} ${node}`);
  }
  const shutdown = (): void => {
    // What this process served, per `<verb> <resource>`, and what it refused: one JSON line for whoever runs it.
    console.log(JSON.stringify({ requestCounts: server.requestCount(), refusals: server.refusals() }));
    server.stop().then(() => process.exit(0), () => process.exit(1));
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
