#!/usr/bin/env node
// shardlet's command line: flags and --config resolved into KubeletOptions, then
// the kubelet runs until SIGTERM/SIGINT. A bad flag or config exits 1 with one line
// naming the flag or field; nothing else reaches the user as a stack trace.
import { ShardletError } from '../shared/errors.js';
import { createLogger, levelForVerbosity } from '../shared/logging.js';
import { Kubelet } from './kubelet.js';
import { helpText, parseFlags } from './options/flags.js';
import { resolveKubeletOptions } from './options/kubelet-config.js';
import { packageVersion } from './version.js';

const EXIT_USAGE = 1;

async function main(argv: string[]): Promise<void> {
  const flags = parseFlags(argv);
  if (flags.help) {
    process.stdout.write(`${helpText()}\n`);
    return;
  }
  if (flags.version) {
    process.stdout.write(`shardlet v${packageVersion()}\n`);
    return;
  }
  const options = await resolveKubeletOptions(flags);
  const logger = createLogger(levelForVerbosity(options.verbosity), { thread: 'main' });
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
