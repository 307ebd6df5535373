// Who a simulated container's processes run as, from its security context, the
// way containerd's CRI plugin builds the OCI process user (WithUser, WithUsername,
// WithAdditionalGIDs, then the supplemental groups): RunAsUser with RunAsGroup or
// the user's primary group from the image's /etc/passwd (0 when it has none),
// RunAsUsername looked up there, the groups that list the user in /etc/group, then
// SupplementalGroups. The image's accounts are those of a busybox image (root,
// daemon, nobody). What exec's `id` prints comes from here.
import type * as cri from '../shared/cri/types.js';
import { unknown, type SimError } from './sim-error.js';

export interface ImageAccount {
  name: string;
  id: number;
  /** The primary group of a user. */
  gid?: number;
  /** Users listed as members of a group. */
  members?: string[];
}

/** /etc/passwd of the busybox images the sim stands for. */
export const IMAGE_USERS: readonly ImageAccount[] = [
  { name: 'root', id: 0, gid: 0 },
  { name: 'daemon', id: 1, gid: 1 },
  { name: 'nobody', id: 65534, gid: 65534 },
];

/** /etc/group of the same images. */
export const IMAGE_GROUPS: readonly ImageAccount[] = [
  { name: 'root', id: 0 },
  { name: 'daemon', id: 1 },
  { name: 'nogroup', id: 65534 },
];

export interface ProcessIdentity {
  uid: number;
  gid: number;
  /** Supplementary groups, in the order the process gets them. */
  groups: number[];
}

export const ROOT_IDENTITY: ProcessIdentity = { uid: 0, gid: 0, groups: [] };

/** Why containerd would refuse this security context at CreateContainer, or undefined. */
export function securityContextFailure(securityContext: cri.LinuxContainerSecurityContext__Output | null | undefined): SimError | undefined {
  if (!securityContext) return undefined;
  const hasUser = securityContext.run_as_user !== null || securityContext.run_as_username !== '';
  if (securityContext.run_as_group !== null && !hasUser) {
    return unknown(`failed to get container spec opts: failed to generate user string: user group "${securityContext.run_as_group.value}" is specified without user`);
  }
  const username = securityContext.run_as_username;
  if (username && !IMAGE_USERS.some((user) => user.name === username)) {
    return unknown(`failed to create containerd container: mount callback failed: no users found (username "${username}")`);
  }
  return undefined;
}

/** The identity the container's process and its execs run with; the caller checked securityContextFailure. */
export function identityOf(securityContext: cri.LinuxContainerSecurityContext__Output | null | undefined): ProcessIdentity {
  if (!securityContext) return ROOT_IDENTITY;
  const byName = IMAGE_USERS.find((user) => user.name === securityContext.run_as_username);
  const uid = securityContext.run_as_user ? Number(securityContext.run_as_user.value) : (byName?.id ?? 0);
  const account = IMAGE_USERS.find((user) => user.id === uid);
  const gid = securityContext.run_as_group ? Number(securityContext.run_as_group.value) : (account?.gid ?? 0);
  const memberOf = account ? IMAGE_GROUPS.filter((group) => group.members?.includes(account.name)).map((group) => group.id) : [];
  const groups = [...memberOf, ...securityContext.supplemental_groups.map(Number)];
  return { uid, gid, groups: [...new Set(groups)] };
}

/** busybox `id [-u|-g|-G] [-n]`: the output line; a name the image lacks prints the number and fails, as busybox does. */
export function formatId(args: readonly string[], identity: ProcessIdentity): { stdout: string; stderr: string; exitCode: number } {
  const flags = new Set(args.filter((arg) => arg.startsWith('-')).flatMap((arg) => [...arg.slice(1)]));
  const names = flags.has('n');
  const name = (accounts: readonly ImageAccount[], id: number) => accounts.find((account) => account.id === id)?.name;
  const shown = (accounts: readonly ImageAccount[], id: number): string | undefined => (names ? name(accounts, id) : String(id));
  let values: Array<string | undefined>;
  if (flags.has('u')) values = [shown(IMAGE_USERS, identity.uid)];
  else if (flags.has('g')) values = [shown(IMAGE_GROUPS, identity.gid)];
  else if (flags.has('G')) values = [identity.gid, ...identity.groups.filter((gid) => gid !== identity.gid)].map((gid) => shown(IMAGE_GROUPS, gid));
  else return { stdout: `${idLine(identity, name)}\n`, stderr: '', exitCode: 0 };
  const ids = flags.has('u') ? [identity.uid] : flags.has('g') ? [identity.gid] : [identity.gid, ...identity.groups.filter((gid) => gid !== identity.gid)];
  const missing = values.findIndex((value) => value === undefined);
  const stdout = `${values.map((value, index) => value ?? String(ids[index])).join(' ')}\n`;
  if (missing >= 0) return { stdout, stderr: `id: unknown ID ${ids[missing]}\n`, exitCode: 1 };
  return { stdout, stderr: '', exitCode: 0 };
}

/** busybox `whoami`: the user's name, or an error when the image has none for the uid. */
export function formatWhoami(identity: ProcessIdentity): { stdout: string; stderr: string; exitCode: number } {
  const name = IMAGE_USERS.find((user) => user.id === identity.uid)?.name;
  return name === undefined ? { stdout: '', stderr: `whoami: unknown uid ${identity.uid}\n`, exitCode: 1 } : { stdout: `${name}\n`, stderr: '', exitCode: 0 };
}

/** `uid=1001 gid=0(root) groups=0(root),1234`, names where the image knows them. */
function idLine(identity: ProcessIdentity, name: (accounts: readonly ImageAccount[], id: number) => string | undefined): string {
  const labelled = (accounts: readonly ImageAccount[], id: number) => {
    const known = name(accounts, id);
    return known === undefined ? String(id) : `${id}(${known})`;
  };
  const groups = [identity.gid, ...identity.groups.filter((gid) => gid !== identity.gid)].map((gid) => labelled(IMAGE_GROUPS, gid));
  return `uid=${labelled(IMAGE_USERS, identity.uid)} gid=${labelled(IMAGE_GROUPS, identity.gid)} groups=${groups.join(',')}`;
}

/** /etc/passwd and /etc/group as the image has them. */
export function accountFiles(): Record<string, string> {
  return {
    '/etc/passwd': IMAGE_USERS.map((user) => `${user.name}:x:${user.id}:${user.gid}:${user.name}:/${user.name === 'root' ? 'root' : 'nonexistent'}:/bin/sh\n`).join(''),
    '/etc/group': IMAGE_GROUPS.map((group) => `${group.name}:x:${group.id}:${(group.members ?? []).join(',')}\n`).join(''),
  };
}
