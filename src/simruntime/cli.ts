#!/usr/bin/env node
// shardlet-sim-runtime: the simulated CRI runtime as its own process.
//   shardlet-sim-runtime --socket /tmp/sim.sock [--profile arm] [--latency-scale 0] [--latency-config latency.json]
//                        [--personality containerd-1.6|containerd-2|crio [--pod-events]] [--no-container-events]
// Logs are pino JSON on stdout; SIGTERM / SIGINT close the socket and exit.
import { parseArgs } from 'node:util';
import { createLogger } from '../shared/logging.js';
import { loadLatencyFile, mergeLatencyOverrides, type LatencyOverrides } from './latency-model.js';
import { isPersonalityName, PERSONALITY_NAMES } from './personality.js';
import { SIM_PROFILES, SIM_PROFILE_NAMES, simProfile } from './profiles.js';
import { startSimRuntime } from './server.js';

const USAGE = `Usage: shardlet-sim-runtime --socket PATH [options]

A simulated CRI (runtime.v1) container runtime on a unix socket.

Options:
  --socket PATH               unix socket to listen on (required)
  --profile NAME              latency profile that the options below override:
${SIM_PROFILE_NAMES.map((name) => `                                ${name.padEnd(8)} ${SIM_PROFILES[name].summary}`).join('\n')}
  --latency-scale X           multiply every delay by X; 0 = instant (default 1)
  --latency-config FILE       JSON file with latency options (scale, jitter,
                              callLatencyMs, listItemLatencyMs,
                              registryBandwidthBytesPerSecond,
                              pullBytesPerSecond, runtimeOperationSlots,
                              defaultImageSizeBytes, imageSizesBytes)
  --jitter F                  uniform jitter fraction, 0 ≤ F < 1 (default 0.2)
  --registry-bandwidth N      registry bytes per second shared by pulls (default 100000000)
  --pull-rate N               bytes per second one pull gets at most; 0 = no cap (default 0)
  --runtime-slots N           runtime operations (sandbox and container create,
                              start, stop, remove) in progress at once; 0 = no
                              limit (default 0)
  --image-size N              size in bytes of images not listed in the config (default 50000000)
  --known-registries LIST     comma-separated registry hosts; others fail to resolve
  --preload-images LIST       comma-separated images present at start
  --personality NAME          answer as this runtime does where runtimes differ
                              (container events, sandbox stats, log record times,
                              PID namespace checks, StopPodSandbox): ${PERSONALITY_NAMES.join(', ')}
                              (default: containerd 2.x, but sandbox stats list
                              running containers only)
  --pod-events                with --personality crio: CRI-O's enable_pod_events =
                              true, container events streamed (default false, as
                              CRI-O's own: GetContainerEvents ends at once, empty)
  --no-container-events       answer GetContainerEvents with UNIMPLEMENTED, as
                              containerd 1.6 does, whatever the personality
  --log-level LEVEL           pino level (default info)
  -h, --help                  this text
`;

function numberFlag(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed < 0) {
    throw new Error(`--${name} must be a number ≥ 0, got "${value}"`);
  }
  return parsed;
}

function listFlag(value: string | undefined): string[] | undefined {
  return value === undefined ? undefined : value.split(',').map((item) => item.trim()).filter(Boolean);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      socket: { type: 'string' },
      profile: { type: 'string' },
      'latency-scale': { type: 'string' },
      'latency-config': { type: 'string' },
      jitter: { type: 'string' },
      'registry-bandwidth': { type: 'string' },
      'pull-rate': { type: 'string' },
      'runtime-slots': { type: 'string' },
      'image-size': { type: 'string' },
      'known-registries': { type: 'string' },
      'preload-images': { type: 'string' },
      personality: { type: 'string' },
      'pod-events': { type: 'boolean' },
      'no-container-events': { type: 'boolean', default: false },
      'log-level': { type: 'string', default: 'info' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(USAGE);
    return;
  }
  if (!values.socket) throw new Error('--socket PATH is required');
  const personality = values.personality;
  if (personality !== undefined && !isPersonalityName(personality)) {
    throw new Error(`--personality must be one of ${PERSONALITY_NAMES.join(', ')}, got "${personality}"`);
  }
  if (values['pod-events'] && personality !== 'crio') throw new Error('--pod-events needs --personality crio');
  const fromProfile = values.profile === undefined ? undefined : simProfile(values.profile).latency;
  const fromFile = values['latency-config'] ? loadLatencyFile(values['latency-config']) : undefined;
  const fromFlags: LatencyOverrides = {
    scale: numberFlag('latency-scale', values['latency-scale']),
    jitter: numberFlag('jitter', values.jitter),
    registryBandwidthBytesPerSecond: numberFlag('registry-bandwidth', values['registry-bandwidth']),
    pullBytesPerSecond: numberFlag('pull-rate', values['pull-rate']),
    runtimeOperationSlots: numberFlag('runtime-slots', values['runtime-slots']),
    defaultImageSizeBytes: numberFlag('image-size', values['image-size']),
  };
  const logger = createLogger(values['log-level'], { component: 'shardlet-sim-runtime' });
  const sim = await startSimRuntime({
    socketPath: values.socket,
    latency: mergeLatencyOverrides(fromProfile, fromFile, fromFlags),
    logger,
    knownRegistries: listFlag(values['known-registries']),
    preloadImages: listFlag(values['preload-images']),
    personality,
    ...(values['pod-events'] ? { podEvents: true } : {}),
    containerEvents: !values['no-container-events'],
  });
  const stop = (): void => {
    void sim.close().then(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((err: unknown) => {
  process.stderr.write(`shardlet-sim-runtime: ${(err as Error).message ?? String(err)}\n\n${USAGE}`);
  process.exit(2);
});
