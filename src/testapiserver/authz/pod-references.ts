// The API objects a pod names, as the Node authorizer's graph and NodeRestriction
// read them: podutil.VisitPodSecretNames / VisitPodConfigmapNames (every kind of
// container's env and envFrom, the volumes that carry a secret reference, image
// pull secrets), the PersistentVolumeClaims of its volumes (a generic ephemeral
// volume's claim is `<pod>-<volume>`), its ResourceClaims (resourceclaim.Name) and
// its service account.
type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Volume sources whose `secretRef` names a Secret (cephfs, cinder, flexVolume, iscsi, rbd, scaleIO, storageos). */
const SECRET_REF_VOLUMES = ['cephfs', 'cinder', 'flexVolume', 'iscsi', 'rbd', 'scaleIO', 'storageos'];

export interface PodReferences {
  secrets: string[];
  configMaps: string[];
  persistentVolumeClaims: string[];
  resourceClaims: string[];
  serviceAccount?: string;
}

function containersOf(spec: Obj): Obj[] {
  return [...(spec.initContainers ?? []), ...(spec.containers ?? []), ...(spec.ephemeralContainers ?? [])].filter((c) => c && typeof c === 'object');
}

function secretNames(spec: Obj): string[] {
  const names: unknown[] = (spec.imagePullSecrets ?? []).map((s: Obj) => s?.name);
  for (const c of containersOf(spec)) {
    for (const source of c.envFrom ?? []) names.push(source?.secretRef?.name);
    for (const env of c.env ?? []) names.push(env?.valueFrom?.secretKeyRef?.name);
  }
  for (const volume of spec.volumes ?? []) {
    if (!volume || typeof volume !== 'object') continue;
    names.push(volume.secret?.secretName, volume.azureFile?.secretName, volume.csi?.nodePublishSecretRef?.name);
    for (const kind of SECRET_REF_VOLUMES) names.push(volume[kind]?.secretRef?.name);
    for (const source of volume.projected?.sources ?? []) names.push(source?.secret?.name);
  }
  return distinctNames(names);
}

function configMapNames(spec: Obj): string[] {
  const names: unknown[] = [];
  for (const c of containersOf(spec)) {
    for (const source of c.envFrom ?? []) names.push(source?.configMapRef?.name);
    for (const env of c.env ?? []) names.push(env?.valueFrom?.configMapKeyRef?.name);
  }
  for (const volume of spec.volumes ?? []) {
    names.push(volume?.configMap?.name);
    for (const source of volume?.projected?.sources ?? []) names.push(source?.configMap?.name);
  }
  return distinctNames(names);
}

function claimNames(pod: Obj, spec: Obj): string[] {
  const names: unknown[] = [];
  for (const volume of spec.volumes ?? []) {
    if (volume?.persistentVolumeClaim) names.push(volume.persistentVolumeClaim.claimName);
    else if (volume?.ephemeral) names.push(`${pod.metadata?.name}-${volume.name}`);
  }
  return distinctNames(names);
}

/** A claim named directly, or the one a template produced as status.resourceClaimStatuses reports it. */
function resourceClaimNames(pod: Obj, spec: Obj): string[] {
  const statuses: Obj[] = pod.status?.resourceClaimStatuses ?? [];
  const names: unknown[] = [];
  for (const claim of spec.resourceClaims ?? []) {
    if (claim?.resourceClaimName) names.push(claim.resourceClaimName);
    else if (claim?.resourceClaimTemplateName) names.push(statuses.find((s) => s?.name === claim.name)?.resourceClaimName);
  }
  names.push(pod.status?.extendedResourceClaimStatus?.resourceClaimName);
  return distinctNames(names);
}

function distinctNames(names: unknown[]): string[] {
  return [...new Set(names.filter((n): n is string => typeof n === 'string' && n !== ''))];
}

export function podReferences(pod: Obj): PodReferences {
  const spec: Obj = pod.spec && typeof pod.spec === 'object' ? pod.spec : {};
  return {
    secrets: secretNames(spec),
    configMaps: configMapNames(spec),
    persistentVolumeClaims: claimNames(pod, spec),
    resourceClaims: resourceClaimNames(pod, spec),
    serviceAccount: typeof spec.serviceAccountName === 'string' && spec.serviceAccountName ? spec.serviceAccountName : undefined,
  };
}

/** The Secrets a PersistentVolume's source names that the kubelet reads (pvutil.VisitPVSecretNames, kubeletVisible). */
export function persistentVolumeSecrets(pv: Obj): Array<{ namespace: string; name: string }> {
  const spec: Obj = pv.spec ?? {};
  const claimNamespace: string = spec.claimRef?.namespace ?? '';
  const found: Array<{ namespace: string; name: string }> = [];
  const add = (namespace: unknown, name: unknown): void => {
    if (typeof name === 'string' && name) found.push({ namespace: typeof namespace === 'string' && namespace ? namespace : claimNamespace, name });
  };
  add(spec.azureFile?.secretNamespace, spec.azureFile?.secretName);
  for (const kind of ['cephfs', 'cinder', 'flexVolume', 'iscsi', 'rbd', 'scaleIO', 'storageos']) add(spec[kind]?.secretRef?.namespace, spec[kind]?.secretRef?.name);
  add(spec.csi?.nodePublishSecretRef?.namespace, spec.csi?.nodePublishSecretRef?.name);
  add(spec.csi?.nodeStageSecretRef?.namespace, spec.csi?.nodeStageSecretRef?.name);
  add(spec.csi?.nodeExpandSecretRef?.namespace, spec.csi?.nodeExpandSecretRef?.name);
  return found;
}
