// runtime.v1's enums as the codecs need them: the names in value order, so a
// name's index is its number on the wire. proto-loader's types give enums by name
// (`enums: String`); test/shared/cri/codec checks every table against the proto.

export const NAMESPACE_MODES = ['POD', 'CONTAINER', 'NODE', 'TARGET'] as const;
export const PROTOCOLS = ['TCP', 'UDP', 'SCTP'] as const;
export const MOUNT_PROPAGATIONS = ['PROPAGATION_PRIVATE', 'PROPAGATION_HOST_TO_CONTAINER', 'PROPAGATION_BIDIRECTIONAL'] as const;
/** SecurityProfile.ProfileType. */
export const SECURITY_PROFILE_TYPES = ['RuntimeDefault', 'Unconfined', 'Localhost'] as const;
export const SUPPLEMENTAL_GROUPS_POLICIES = ['Merge', 'Strict'] as const;
export const POD_SANDBOX_STATES = ['SANDBOX_READY', 'SANDBOX_NOTREADY'] as const;
export const CONTAINER_STATES = ['CONTAINER_CREATED', 'CONTAINER_RUNNING', 'CONTAINER_EXITED', 'CONTAINER_UNKNOWN'] as const;

/** The name of a decoded value; a number the table does not know stays a number, as protobufjs's toObject leaves it. */
export function enumName<Name extends string>(names: readonly Name[], value: number): Name {
  return names[value] ?? (value as unknown as Name);
}
