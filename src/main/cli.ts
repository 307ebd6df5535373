#!/usr/bin/env node
// shardlet's command line: flags and --config resolved into KubeletOptions, then
// the kubelet runs until SIGTERM/SIGINT. A bad flag or config exits 1 with one line
// naming the flag or field; nothing else reaches the user as a stack trace.
import { ShardletError } from '../shared/errors.js';
import type { Logger } from 'pino';
import { createLogger, levelForVerbosity } from '../shared/logging.js';
import type { StartupNotices } from './options/kubelet-options.js';
import { Kubelet } from './kubelet.js';
import { helpText, parseFlags } from './options/flags.js';
import { resolveKubeletOptions } from './options/kubelet-config.js';
import { notifySystemdReady } from './sd-notify.js';
import { kubeletVersion } from './version.js';

const EXIT_USAGE = 1;

async function main(argv: string[]): Promise<void> {
  const flags = parseFlags(argv);
  if (flags.help) {
    process.stdout.write(`${helpText()}\n`);
    return;
  }
  if (flags.version) {
    process.stdout.write(`Kubernetes ${kubeletVersion()}\n`);
    return;
  }
  const options = await resolveKubeletOptions(flags);
  const logger = createLogger(levelForVerbosity(options.verbosity), { thread: 'main' });
  logStartupNotices(logger, options.startupNotices);
  const kubelet = new Kubelet(options, logger);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'Shutting down');
    kubelet.stop().then(
      () => logger.flush(() => process.exit(0)),
      (err: Error) => {
        logger.error({ err: err.message }, 'Shutdown failed');
        logger.flush(() => process.exit(1));
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  await kubelet.start();
  // The sync loop runs: a Type=notify unit (OpenShift's) may count the kubelet as started.
  await notifySystemdReady(logger);
}

/** Upstream logs each of these once at start-up; the settings not acted on go in one warning. */
function logStartupNotices(logger: Logger, notices: StartupNotices): void {
  for (const message of notices.deprecations) logger.warn(message);
  for (const message of notices.decodeWarnings) logger.warn(message);
  for (const message of notices.clusterWarnings) logger.warn(message);
  for (const message of notices.featureGateWarnings) logger.warn(message);
  if (notices.notActedOn.length > 0) {
    logger.warn({ settings: notices.notActedOn }, `Settings accepted but not acted on yet by shardlet: ${notices.notActedOn.join(', ')}`);
  }
}

main(process.argv.slice(2)).catch((err: unknown) => {
  if (err instanceof ShardletError) {
    process.stderr.write(`shardlet: ${err.message} (${err.code})\n`);
    process.exit(EXIT_USAGE);
  }
  if ((err as Error)?.name === 'AbortError') process.exit(0);
  process.stderr.write(`shardlet: ${(err as Error)?.stack ?? String(err)}\n`);
  process.exit(EXIT_USAGE);
});
