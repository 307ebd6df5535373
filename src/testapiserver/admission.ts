// What a write goes through after authorization, in kube-apiserver's order:
// admission (here NodeRestriction, the plugin that limits nodes), then the
// strategy's validation (pods, RBAC objects). Each write path (create, update,
// patch, the status subresource, delete, eviction, TokenRequest) calls admit()
// with the object it is about to store and the one it replaces.
import type { ClientIdentity } from './tls.js';
import type { KubeObject } from './types.js';

export type Operation = 'CREATE' | 'UPDATE' | 'DELETE';

export interface AdmissionAttributes {
  operation: Operation;
  user?: ClientIdentity;
  group: string;
  /** Plural: 'pods'. */
  resource: string;
  subresource: string;
  namespace: string;
  /** On a create, the new object's name (as the create handler records it). */
  name: string;
  /** The object to store; for eviction and TokenRequest, the request body. */
  object?: KubeObject;
  oldObject?: KubeObject;
}

/** Throws the refusal (403 from admission, 422 from validation). */
export type Admit = (attributes: AdmissionAttributes) => void;

/** No admission plugins and no validation (enforcement off). */
export const admitAll: Admit = () => {};

/** Runs each step in order; the first refusal wins. */
export function admissionChain(...steps: Admit[]): Admit {
  return (attributes) => {
    for (const step of steps) step(attributes);
  };
}
