// Dev tooling shared by the metrics tests: Debian's prometheus package through
// scripts/prometheus/setup.sh (idempotent, quick once installed, never leaves the
// packaged daemon running), and a Prometheus server of a test's own.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './free-port.js';

const PACKAGE_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SETUP_TIMEOUT_MS = 15 * 60_000;

export interface PrometheusBinaries {
  promtool: string;
  prometheus: string;
}

export function ensurePrometheus(): PrometheusBinaries {
  const output = execFileSync('bash', [join(PACKAGE_ROOT, 'scripts/prometheus/setup.sh')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    timeout: SETUP_TIMEOUT_MS,
  });
  const paths = output.trim().split('\n').slice(-2);
  return { promtool: paths.find((p) => p.endsWith('/promtool'))!, prometheus: paths.find((p) => p.endsWith('/prometheus'))! };
}

/** `promtool check metrics` over an exposition text: its exit code and what it said (lint problems on stdout or stderr). */
export function promtoolCheckMetrics(promtool: string, text: string): { ok: boolean; output: string } {
  try {
    const output = execFileSync(promtool, ['check', 'metrics'], { input: text, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] });
    return { ok: true, output };
  } catch (err) {
    const failure = err as { stdout?: string; stderr?: string };
    return { ok: false, output: `${failure.stdout ?? ''}${failure.stderr ?? ''}` };
  }
}

export interface PrometheusServer {
  /** Its HTTP API, e.g. http://127.0.0.1:PORT. */
  url: string;
  process: ChildProcess;
  dataDir: string;
}

/** Scraping over TLS with a client certificate, as Prometheus scrapes a real kubelet's :10250. */
export interface ScrapeTls {
  certFile: string;
  keyFile: string;
  /** The kubelet's serving certificate is self-signed here: not verified. */
  insecureSkipVerify: boolean;
}

/**
 * Starts a Prometheus server in its own process group, on a free port, scraping
 * `target` (host:port; plain HTTP, or HTTPS with `tls`) every second, at
 * `metricsPath`. The caller stops it with signalGroup.
 */
export async function startPrometheus(binary: string, target: string, job = 'shardlet', tls?: ScrapeTls, metricsPath = '/metrics'): Promise<PrometheusServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'shardlet-prometheus-'));
  const configPath = join(dataDir, 'prometheus.yml');
  writeFileSync(
    configPath,
    [
      'global:',
      '  scrape_interval: 1s',
      '  scrape_timeout: 1s',
      'scrape_configs:',
      `  - job_name: ${job}`,
      `    metrics_path: ${metricsPath}`,
      ...(tls
        ? ['    scheme: https', '    tls_config:', `      cert_file: ${tls.certFile}`, `      key_file: ${tls.keyFile}`, `      insecure_skip_verify: ${tls.insecureSkipVerify}`]
        : []),
      '    static_configs:',
      `      - targets: ['${target}']`,
      '',
    ].join('\n'),
  );
  const port = await freePort();
  const child = spawn(
    binary,
    [`--config.file=${configPath}`, `--storage.tsdb.path=${join(dataDir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`],
    { detached: true, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  child.stderr?.resume();
  return { url: `http://127.0.0.1:${port}`, process: child, dataDir };
}
