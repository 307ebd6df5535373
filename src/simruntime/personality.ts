// Runtime personalities: where the real runtimes shardlet meets on nodes answer the
// same CRI call differently, the simulated runtime can answer as each one does.
// Each trait is read off the runtime's own source (containerd's internal/cri
// server, CRI-O's server/ and conmon), not guessed:
//
// - container events: containerd 1.6 has no GetContainerEvents (its gRPC server
//   answers UNIMPLEMENTED); containerd 1.7+/2.x streams every container and sandbox
//   change, CONTAINER_DELETED_EVENT included. CRI-O's GetContainerEvents returns nil
//   at once when enable_pod_events is false (its default): OK, an empty stream that
//   ends. With it true CRI-O streams events, a container's removal included
//   (RemoveContainer), but never a sandbox's: removePodSandbox generates the event
//   after the sandbox left its index, and generateCRIEvent drops an event whose
//   sandbox it cannot find. Its sandbox gets CREATED (runSandbox) but no STARTED.
// - ListPodSandboxStats: containerd 2.x lists every container of the sandbox,
//   exited instances included, those with no CPU or memory figures (no task
//   metrics). CRI-O 1.32, as issue 27 saw it on a node, gives no pod-level
//   linux.cpu / linux.memory: its stats server (updateSandbox) leaves them unset
//   whenever it cannot read the sandbox's cgroup (SandboxCgroupStats fails: an
//   error in its log, the figures left out), and fills them when it can; the
//   containers' own figures are there either way, running containers only.
// - the CRI log record time: containerd writes RFC3339Nano in UTC with `Z`
//   (trailing zeros of the fraction dropped); CRI-O's conmon writes local time with
//   nine fraction digits and a `±hh:mm` offset (`+00:00` on a UTC node).
// - CRI-O refuses a container that asks for the pod's PID namespace in a sandbox
//   that has none (SpecAddNamespaces; its infra container is dropped then);
//   containerd joins the pause process's namespace whatever the sandbox said.
// - StopPodSandbox: containerd stops the sandbox's containers with no grace
//   (SIGKILL); CRI-O stops each with SIGTERM and a timeout of what is left of the
//   call's deadline (stopTimeoutFromContext, 10 s without one), so a container that
//   ignores SIGTERM holds the call for its whole deadline.
// - supplementalGroupsPolicy (KEP 3619): containerd 2.0 and CRI-O 1.31 honour Strict
//   and say so in Status features.supplemental_groups_policy; containerd 1.6 has
//   neither the field nor the feature (it merges the image's groups whatever it is told).

export const PERSONALITY_NAMES = ['containerd-1.6', 'containerd-2', 'crio'] as const;
export type PersonalityName = (typeof PERSONALITY_NAMES)[number];

/** How GetContainerEvents answers. */
export type ContainerEventsMode = 'unimplemented' | 'stream' | 'empty-stream';

export interface RuntimePersonality {
  /** `default` is the sim without a personality: containerd-2 except for its stats (see DEFAULT_PERSONALITY). */
  name: PersonalityName | 'default';
  containerEvents: ContainerEventsMode;
  /** CONTAINER_DELETED_EVENT when a container is removed. */
  containerDeletedEvents: boolean;
  /** CONTAINER_DELETED_EVENT when a sandbox is removed. */
  sandboxDeletedEvents: boolean;
  /** CONTAINER_STARTED_EVENT for a new sandbox (after its CREATED). */
  sandboxStartedEvents: boolean;
  /** ListPodSandboxStats / PodSandboxStats list exited container instances, with no CPU or memory figures. */
  statsListExitedContainers: boolean;
  /** Pod-level linux.cpu and linux.memory in the sandbox stats. */
  podCpuMemoryStats: boolean;
  /** The CRI log record time: `Z` (containerd) or `+00:00` with nine fraction digits (CRI-O's conmon on a UTC node). */
  logTimeOffset: 'Z' | '+00:00';
  /** CreateContainer refuses PID namespace POD in a sandbox whose own PID namespace is not POD. */
  refusesInconsistentPidNamespace: boolean;
  /** StopPodSandbox on running containers: SIGKILL at once, or SIGTERM and what is left of the call's deadline. */
  sandboxStop: 'kill' | 'stop-until-deadline';
  /** Status features.supplemental_groups_policy, and Strict honoured (no groups from the image's /etc/group). */
  supplementalGroupsPolicy: boolean;
}

export interface PersonalityOptions {
  /** crio only: CRI-O's enable_pod_events (default false, as CRI-O's own default). */
  podEvents?: boolean;
}

const CONTAINERD_2: RuntimePersonality = {
  name: 'containerd-2',
  containerEvents: 'stream',
  containerDeletedEvents: true,
  sandboxDeletedEvents: true,
  sandboxStartedEvents: true,
  statsListExitedContainers: true,
  podCpuMemoryStats: true,
  logTimeOffset: 'Z',
  refusesInconsistentPidNamespace: false,
  sandboxStop: 'kill',
  supplementalGroupsPolicy: true,
};

/**
 * The sim as it was before personalities, and still without one: containerd 2.x,
 * except that its sandbox stats list running containers only (as containerd 1.6's
 * do), which the stats code and tests were written against.
 */
export const DEFAULT_PERSONALITY: RuntimePersonality = { ...CONTAINERD_2, name: 'default', statsListExitedContainers: false };

/** The traits of a named personality, or the default one. */
export function runtimePersonality(name?: PersonalityName, options: PersonalityOptions = {}): RuntimePersonality {
  if (options.podEvents !== undefined && name !== 'crio') throw new Error('podEvents is an option of the crio personality only');
  switch (name) {
    case undefined:
      return DEFAULT_PERSONALITY;
    case 'containerd-1.6':
      return { ...CONTAINERD_2, name, containerEvents: 'unimplemented', statsListExitedContainers: false, supplementalGroupsPolicy: false };
    case 'containerd-2':
      return CONTAINERD_2;
    case 'crio':
      return {
        name,
        containerEvents: options.podEvents ? 'stream' : 'empty-stream',
        containerDeletedEvents: true,
        sandboxDeletedEvents: false,
        sandboxStartedEvents: false,
        statsListExitedContainers: false,
        podCpuMemoryStats: false,
        logTimeOffset: '+00:00',
        refusesInconsistentPidNamespace: true,
        sandboxStop: 'stop-until-deadline',
        supplementalGroupsPolicy: true,
      };
    default:
      throw new Error(`unknown runtime personality "${String(name)}" (known: ${PERSONALITY_NAMES.join(', ')})`);
  }
}

export function isPersonalityName(name: string): name is PersonalityName {
  return (PERSONALITY_NAMES as readonly string[]).includes(name);
}
