// The catalog: which runs make up each scenario, by default and with --quick (the
// plan, plan.ts, runs each distinct run once), and how a run and a floor are named.
import type { SimProfileName } from '../src/simruntime/profiles.js';
import { BENCH_PROBE_PERIOD_SECONDS } from './bench-pods.js';
import type { BenchOptions, SourceKind } from './options.js';
import type { ScenarioName } from './scenario-names.js';
import type { BuiltRow, BuiltScenario, ChurnSpec, FloorSpec, ImagePulls, ImageSet, ProbeMode, RunSpec, RuntimeProfile } from './plan-types.js';

export { CONTAINERD_SCENARIO, SCENARIO_NAMES, SIM_SCENARIO_NAMES, type ScenarioName } from './scenario-names.js';
export type * from './plan-types.js';


const MB = 1_000_000;
const DEFAULT_STEADY_SECONDS = 30;
/** The issue's probes window: 60 s of 500 pods probed every 10 s. */
const DEFAULT_PROBES_SECONDS = 60;
const QUICK_PROBES_SECONDS = 4;
/** The quick run probes every 2 s, so its few periods fit in a smoke run's seconds. */
const QUICK_PROBE_PERIOD_SECONDS = 2;
const QUICK_STEADY_SECONDS = 3;
const QUICK_PODS = 20;
const QUICK_WORKERS = [0, 1];
/** The issue's figures: the target node size, and the density bench's own. */
export const SCALE_TARGET_PODS = 2500;
export const TARGET_PODS = 500;
/** Enough runs for a median and its spread, few enough for the default bench's half hour. */
const DEFAULT_SCALE_REPEATS = 3;
/** Two: the quick run still takes a median over runs. */
const QUICK_SCALE_REPEATS = 2;
/** The issue measured the scale runs with --workers 2. */
export const SCALE_WORKERS = 2;
/** The issue's soak: 10 created and 10 deleted per second for 10 minutes, on 500 pods. */
const DEFAULT_CHURN_SECONDS = 600;
const CHURN_PER_SECOND = 10;
const QUICK_CHURN_SECONDS = 20;
/** 20 quick pods at 10/s would live 2 s each: the quick run keeps the issue's 50 s life at 500 pods closer in kind. */
const QUICK_CHURN_PER_SECOND = 2;
/** Pods above this many need a larger --max-pods: shardlet admits at most maxPods. */
export const MAX_PODS_HEADROOM = 10;

/** Ten app images: pulls happen, but the runtime's pod work dominates. */
function densityImages(): ImageSet {
  const images = Array.from({ length: 10 }, (_, i) => `registry.bench/app-${i}:1.0`);
  return { name: '10x50MB', description: '10 images of 50 MB', images, sizesBytes: Object.fromEntries(images.map((image) => [image, 50 * MB])) };
}

/** `count` images from minBytes to maxBytes, spaced evenly on a log scale: many small images, a few big ones. */
function pullImages(count: number, minBytes: number, maxBytes: number): ImageSet {
  const images = Array.from({ length: count }, (_, i) => `registry.bench/pull-${i}:1.0`);
  const ratio = count > 1 ? (maxBytes / minBytes) ** (1 / (count - 1)) : 1;
  const sizesBytes = Object.fromEntries(images.map((image, i) => [image, Math.round(minBytes * ratio ** i)]));
  const range = `${minBytes / MB}–${maxBytes / MB} MB`;
  return { name: `${count}x${minBytes / MB}-${maxBytes / MB}MB`, description: `${count} images of ${range}`, images, sizesBytes };
}

function localImage(image: string): ImageSet {
  return { name: 'local', description: `one local image (${image})`, images: [image], sizesBytes: {} };
}

const PARALLEL_5: ImagePulls = { serialize: false, maxParallel: 5 };

function imagePullsLabel(pulls: ImagePulls): string {
  return pulls.serialize ? 'serial' : `parallel-${pulls.maxParallel}`;
}

function totalImageBytes(imageSet: ImageSet): number {
  return Object.values(imageSet.sizesBytes).reduce((sum, bytes) => sum + bytes, 0);
}

interface RunAxes {
  profiles: RuntimeProfile[];
  pods: number[];
  sources: SourceKind[];
  workers: number[];
  imageSet: ImageSet;
  imagePulls: ImagePulls[];
  steadySeconds?: number;
  churn?: ChurnSpec;
  probes?: { readiness: ProbeMode; periodSeconds: number };
}

/** Every combination of the axes, labelled by `label`. */
function rowsOf(axes: RunAxes, label: (run: RunSpec) => string): BuiltRow[] {
  const rows: BuiltRow[] = [];
  for (const profile of axes.profiles)
    for (const imagePulls of axes.imagePulls)
      for (const pods of axes.pods)
        for (const source of axes.sources)
          for (const workers of axes.workers) {
            const floorId = `${profile}:${pods}p:${axes.imageSet.name}:${imagePullsLabel(imagePulls)}`;
            const run: RunSpec = {
              id: `${floorId}:${source}:w${workers}${axes.probes ? `:probes-${axes.probes.readiness}` : ''}`,
              floorId,
              profile,
              pods,
              imageSet: axes.imageSet,
              imagePulls,
              source,
              workers,
              steadySeconds: axes.steadySeconds ?? 0,
              ...(axes.churn ? { churn: axes.churn } : {}),
              ...(axes.probes ? { probes: axes.probes } : {}),
            };
            rows.push({ label: label(run), runId: run.id, run });
          }
  return rows;
}

type ScenarioBuilder = (options: BenchOptions, containerdImage: string | undefined) => BuiltScenario;

const BOTH_SOURCES: SourceKind[] = ['static', 'api'];

const SCENARIOS: Record<ScenarioName, ScenarioBuilder> = {
  density: (o) => {
    const profile = o.profile ?? 'arm';
    return {
      name: 'density',
      title: `density: one-container pods (a third with an init container) submitted at once; ${densityImages().description}, parallel pulls ≤ 5; profile ${profile}`,
      kind: 'start',
      rows: rowsOf(
        {
          profiles: [profile],
          pods: o.pods ?? (o.quick ? [QUICK_PODS] : [250, 500]),
          sources: o.sources ?? BOTH_SOURCES,
          workers: o.workers ?? (o.quick ? QUICK_WORKERS : [0, 2]),
          imageSet: densityImages(),
          imagePulls: [PARALLEL_5],
        },
        (run) => `density-${run.pods}`,
      ),
    };
  },
  pulls: (o) => {
    const profile = o.profile ?? 'arm';
    const imageSet = o.quick ? pullImages(5, 5 * MB, 50 * MB) : pullImages(25, 50 * MB, 500 * MB);
    return {
      name: 'pulls',
      title: `pulls: pods over ${imageSet.description} (${(totalImageBytes(imageSet) / 1e9).toFixed(1)} GB in all), serializeImagePulls against maxParallelImagePulls; profile ${profile}`,
      kind: 'start',
      rows: rowsOf(
        {
          profiles: [profile],
          pods: o.pods ?? (o.quick ? [QUICK_PODS] : [500]),
          sources: o.sources ?? ['static'],
          workers: o.workers ?? (o.quick ? [1] : [0, 2]),
          imageSet,
          imagePulls: o.quick ? [{ serialize: true }, PARALLEL_5] : [{ serialize: true }, PARALLEL_5, { serialize: false, maxParallel: 10 }],
        },
        (run) => `pulls ${imagePullsLabel(run.imagePulls)}`,
      ),
    };
  },
  sweep: (o) => {
    const profiles = [...new Set<SimProfileName>([o.profile ?? 'arm', 'instant'])];
    const pods = o.pods ?? (o.quick ? [QUICK_PODS] : [500]);
    return {
      name: 'sweep',
      title: `sweep: --workers on density-${pods.join('/')}, profiles ${profiles.join(' and ')} (instant: kubelet-bound)`,
      kind: 'start',
      rows: rowsOf(
        {
          profiles,
          pods,
          sources: o.sources ?? ['static'],
          workers: o.workers ?? (o.quick ? QUICK_WORKERS : [0, 1, 2, 4, 8]),
          imageSet: densityImages(),
          imagePulls: [PARALLEL_5],
        },
        (run) => `sweep ${run.profile}`,
      ),
    };
  },
  'kubelet-bound': (o) => ({
    name: 'kubelet-bound',
    title: 'kubelet-bound: density on the instant profile (every runtime call answers at once): only shardlet’s own cost shows',
    kind: 'start',
    rows: rowsOf(
      {
        profiles: ['instant'],
        pods: o.pods ?? (o.quick ? [QUICK_PODS] : [500]),
        // The quick run covers the API source in density already.
        sources: o.sources ?? (o.quick ? ['static'] : BOTH_SOURCES),
        workers: o.workers ?? (o.quick ? QUICK_WORKERS : [0, 2]),
        imageSet: densityImages(),
        imagePulls: [PARALLEL_5],
      },
      () => 'kubelet-bound',
    ),
  }),
  scale: (o) => scaleScenario(o),
  steady: (o) => {
    const profile = o.profile ?? 'arm';
    const steadySeconds = o.steadySeconds ?? (o.quick ? QUICK_STEADY_SECONDS : DEFAULT_STEADY_SECONDS);
    return {
      name: 'steady',
      title: `steady: shardlet with every density pod Running, measured for ${steadySeconds} s after a settling pause; profile ${profile}`,
      kind: 'steady',
      rows: rowsOf(
        {
          profiles: [profile],
          // 2,500 on the scale scenario's run of the same kind, when both run.
          pods: o.pods ?? (o.quick ? [QUICK_PODS] : [TARGET_PODS, SCALE_TARGET_PODS]),
          sources: o.sources ?? ['static'],
          workers: o.workers ?? (o.quick ? [1] : [2]),
          imageSet: densityImages(),
          imagePulls: [PARALLEL_5],
          steadySeconds,
        },
        (run) => `steady-${run.pods}`,
      ),
    };
  },
  probes: (o) => {
    const profile = o.profile ?? 'arm';
    const steadySeconds = o.steadySeconds ?? (o.quick ? QUICK_PROBES_SECONDS : DEFAULT_PROBES_SECONDS);
    const periodSeconds = o.quick ? QUICK_PROBE_PERIOD_SECONDS : BENCH_PROBE_PERIOD_SECONDS;
    const modes: ProbeMode[] = ['none', o.probesExec ? 'http+exec' : 'http'];
    const rows = modes.flatMap((readiness) =>
      rowsOf(
        {
          profiles: [profile],
          pods: o.pods ?? (o.quick ? [QUICK_PODS] : [500]),
          sources: o.sources ?? ['static'],
          workers: o.workers ?? (o.quick ? [1] : [2]),
          imageSet: densityImages(),
          imagePulls: [PARALLEL_5],
          steadySeconds,
          probes: { readiness, periodSeconds },
        },
        () => (readiness === 'none' ? 'no probes' : `probes ${readiness}`),
      ),
    );
    return {
      name: 'probes',
      title: `probes: every pod Running with a readiness probe every ${periodSeconds} s (${o.probesExec ? 'half httpGet, half exec' : 'httpGet; --probes-exec for an exec half'}), against the same run without probes, measured for ${steadySeconds} s after a period's settling; profile ${profile}`,
      kind: 'steady',
      rows,
    };
  },
  churn: (o) => {
    const profile = o.profile ?? 'arm';
    const churn: ChurnSpec = {
      seconds: o.churnSeconds ?? (o.quick ? QUICK_CHURN_SECONDS : DEFAULT_CHURN_SECONDS),
      perSecond: o.quick ? QUICK_CHURN_PER_SECOND : CHURN_PER_SECOND,
    };
    return {
      name: 'churn',
      title:
        `churn: density pods Running, then ${churn.perSecond} created and ${churn.perSecond} deleted per second for ${churn.seconds} s ` +
        `(static manifests); leaks after, RSS and start p99 over time; profile ${profile}`,
      kind: 'churn',
      rows: rowsOf(
        {
          profiles: [profile],
          pods: o.pods ?? (o.quick ? [QUICK_PODS] : [500]),
          // Deletion is a manifest removed: the static source only.
          sources: ['static'],
          workers: o.workers ?? (o.quick ? [1] : [2]),
          imageSet: densityImages(),
          imagePulls: [PARALLEL_5],
          churn,
        },
        () => 'churn',
      ),
    };
  },
  containerd: (o, containerdImage) => ({
    name: 'containerd',
    title: `containerd: density on the project's containerd, ${localImage(containerdImage ?? 'busybox').description}; floor = a bare parallel CRI client run just before`,
    kind: 'start',
    rows: rowsOf(
      {
        profiles: ['containerd'],
        pods: o.pods ?? (o.quick ? [QUICK_PODS] : [50, 250]),
        sources: o.sources ?? ['static'],
        workers: o.workers ?? (o.quick ? QUICK_WORKERS : [0, 2]),
        imageSet: localImage(containerdImage ?? 'busybox'),
        imagePulls: [PARALLEL_5],
      },
      (run) => `containerd-${run.pods}`,
    ),
  }),
};

/** One scenario's rows, each with its run; `repeats` for rows the plan runs several times. */
export function buildScenario(name: ScenarioName, options: BenchOptions, containerdImage: string | undefined): BuiltScenario {
  return SCENARIOS[name](options, containerdImage);
}

/**
 * The issue's 2,500 pods on one node: 1,000 and 2,500 pods, instant and arm, at
 * --workers 2, each run `repeats` times (a start's figures swing by tens of percent
 * between runs); and 500 pods instant static, the figure the 2,500's main-thread cost
 * per pod is judged against, repeated alike. The static source by default: an API
 * source start of 2,500 pods took 5 minutes on the 2-core machine, three of them
 * would double the default bench; --source both adds them.
 */
function scaleScenario(o: BenchOptions): BuiltScenario {
  const repeats = o.repeats ?? (o.quick ? QUICK_SCALE_REPEATS : DEFAULT_SCALE_REPEATS);
  const profiles: SimProfileName[] = o.profile ? [o.profile] : o.quick ? ['instant'] : ['instant', 'arm'];
  const sources = o.sources ?? ['static'];
  const workers = o.workers ?? (o.quick ? [1] : [SCALE_WORKERS]);
  const axes = { imageSet: densityImages(), imagePulls: [PARALLEL_5] };
  const label = (run: RunSpec) => `scale-${run.pods}`;
  // Without --pods: the 500-pod reference, on the target's own profile, source and --workers only.
  const reference =
    o.pods || o.quick
      ? []
      : rowsOf(
          {
            ...axes,
            profiles: profiles.filter((profile) => profile === 'instant'),
            pods: [TARGET_PODS],
            sources: sources.filter((source) => source === 'static'),
            workers: workers.filter((count) => count === SCALE_WORKERS),
          },
          label,
        );
  const grid = rowsOf({ ...axes, profiles, pods: o.pods ?? (o.quick ? [QUICK_PODS] : [1000, SCALE_TARGET_PODS]), sources, workers }, label);
  return {
    name: 'scale',
    title:
      `scale: density pods at ${[...new Set([...reference, ...grid].map((row) => row.run.pods))].join(', ')} on profiles ${profiles.join(' and ')}, ` +
      `each run ${repeats} time${repeats === 1 ? '' : 's'}: the median, and the spread (min–max) in parentheses`,
    kind: 'scale',
    rows: [...reference, ...grid],
    repeats,
  };
}

/** "arm 500 pods, static, --workers 2" and the pull setting when it is not the density one. */
export function describeRun(run: RunSpec): string {
  const pulls = run.imageSet.name === densityImages().name ? '' : `, ${run.imageSet.images.length} images ${imagePullsLabel(run.imagePulls)}`;
  const steady = run.steadySeconds > 0 ? `, then ${run.steadySeconds} s steady` : '';
  const churn = run.churn ? `, then ${run.churn.seconds} s churn at ${run.churn.perSecond}/s` : '';
  const events = `${run.simPersonality ? ` as ${run.simPersonality}` : ''}${run.containerEvents === false ? ', no container events' : ''}`;
  const limit = run.creationLimit ? `, --runtime-creation-limit=${run.creationLimit}` : '';
  return `${run.profile}${events} ${run.pods} pods${pulls}, ${run.source}, --workers ${run.workers}${limit}${steady}${churn}`;
}

export function describeFloor(floor: FloorSpec): string {
  return `floor: bare CRI client, ${floor.profile} ${floor.pods} pods, ${floor.imageSet.images.length} images ${imagePullsLabel(floor.imagePulls)}`;
}
