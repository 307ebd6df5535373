// The kubelet API's webhook clients: TokenReview (authentication.k8s.io/v1) and
// SubjectAccessReview (authorization.k8s.io/v1) sent with the kubelet's own
// kubeconfig, as upstream's BuildAuth does with the kubelet's client. The
// kubeconfig is read on first use, so a node that bootstraps its client
// certificate after the server is listening still gets a working client.
import { AuthenticationV1Api, AuthorizationV1Api, KubeConfig } from '@kubernetes/client-node';
import type { AccessReviewer, AccessReviewResult } from '../../server/authorizer.js';
import type { TokenReviewer, TokenReviewResult } from '../../server/authenticator.js';
import type { RequestUser } from '../../server/kubelet-routes.js';
import type { RequestAttributes } from '../../server/request-attributes.js';

function lazyClient<T>(kubeconfigPath: string, make: (config: KubeConfig) => T): () => T {
  let client: T | undefined;
  return () => {
    if (!client) {
      const config = new KubeConfig();
      config.loadFromFile(kubeconfigPath);
      client = make(config);
    }
    return client;
  };
}

export function tokenReviewer(kubeconfigPath: string): TokenReviewer {
  const api = lazyClient(kubeconfigPath, (config) => config.makeApiClient(AuthenticationV1Api));
  return {
    async review(token: string): Promise<TokenReviewResult> {
      const review = await api().createTokenReview({ body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } } });
      const status = review.status ?? {};
      if (!status.authenticated || !status.user?.username) return { authenticated: false };
      const { username, uid, groups, extra } = status.user;
      return { authenticated: true, user: { name: username, ...(uid ? { uid } : {}), groups: groups ?? [], ...(extra ? { extra } : {}) } };
    },
  };
}

export function accessReviewer(kubeconfigPath: string): AccessReviewer {
  const api = lazyClient(kubeconfigPath, (config) => config.makeApiClient(AuthorizationV1Api));
  return {
    async review(user: RequestUser, attributes: RequestAttributes): Promise<AccessReviewResult> {
      const review = await api().createSubjectAccessReview({
        body: {
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SubjectAccessReview',
          spec: {
            user: user.name,
            ...(user.uid ? { uid: user.uid } : {}),
            groups: user.groups,
            ...(user.extra ? { extra: user.extra } : {}),
            resourceAttributes: {
              verb: attributes.verb,
              version: 'v1',
              resource: attributes.resource,
              subresource: attributes.subresource,
              name: attributes.name,
            },
          },
        },
      });
      return { allowed: review.status?.allowed === true && review.status.denied !== true, reason: review.status?.reason };
    },
  };
}
