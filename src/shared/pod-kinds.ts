// Which kind of pod a pod is, by the annotations the kubelet gives it (upstream's
// kubetypes.IsStaticPod / IsMirrorPod), and how logs name it.
import { CONFIG_MIRROR_ANNOTATION, CONFIG_SOURCE_ANNOTATION } from './labels.js';
import { API_SOURCE, type Pod } from './types.js';

/** A pod from the API server source. */
export function isApiPod(pod: Pod): boolean {
  return pod.metadata?.annotations?.[CONFIG_SOURCE_ANNOTATION] === API_SOURCE;
}

/** As kubetypes.IsStaticPod: a config source other than the API server. */
export function isStaticPod(pod: Pod): boolean {
  const source = pod.metadata?.annotations?.[CONFIG_SOURCE_ANNOTATION];
  return source !== undefined && source !== API_SOURCE;
}

/** As kubetypes.IsMirrorPod: the API server's copy of a static pod. */
export function isMirrorPod(pod: Pod): boolean {
  return pod.metadata?.annotations?.[CONFIG_MIRROR_ANNOTATION] !== undefined;
}

/** namespace/name, as log lines name a pod. */
export function podRef(pod: Pod): string {
  return `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`;
}
